"""`python -m gpucost.flows.cli`: the `gpucost` command."""

import sys

from gpucost.flows.cli.main import main

sys.exit(main())
