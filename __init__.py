"""gpucost: live economics of AI compute.

The installed package is `gpucost`; the repository keeps its four rooms as top-level folders
(`catalog`, `warehouse`, `models`, `flows`), which are its subpackages:

    from gpucost.catalog import sources      # what we know and where we get it
    from gpucost.warehouse import store      # where it is kept
    from gpucost.models import runner        # how it is derived
    from gpucost.flows import refresh         # when and how it runs
    from gpucost.flows.cli import main        # the `gpucost` command

    import gpucost
    gpucost.offers("H100:8", max_price=4.0)  # offers in force, as a pandas DataFrame
"""

__version__ = "0.1.0"


def __getattr__(name: str):  # type: ignore[no-untyped-def]
    """`gpucost.offers(...)`: the offers command as a DataFrame (flows/cli/offers.py), imported on
    first use so that `import gpucost` stays light."""
    if name == "offers":
        from gpucost.flows.cli.offers import offers

        return offers
    raise AttributeError(f"module 'gpucost' has no attribute {name!r}")
