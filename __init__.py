"""gpucost: live economics of AI compute.

The installed package is `gpucost`; the repository keeps its four rooms as top-level folders
(`catalog`, `warehouse`, `models`, `flows`), which are its subpackages:

    from gpucost.catalog import sources      # what we know and where we get it
    from gpucost.warehouse import store      # where it is kept
    from gpucost.models import runner        # how it is derived
    from gpucost.flows import cli            # when and how it runs
"""

__version__ = "0.1.0"
