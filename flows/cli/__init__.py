"""The `gpucost` command line: `main.py` parses and dispatches, one module per command."""
