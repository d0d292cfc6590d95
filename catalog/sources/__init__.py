"""One module per external source (gpuhunt style): fetch + parse, never DuckDB.

Every source module defines a pure `parse(payload) -> ParseResult` and one `SOURCE`, a
`catalog.sources.base.Source` saying its name, kind, live endpoint, the parts to fetch and its
fetch policy. The pipeline reaches sources only through `get(name)` -> Source.

Adding a source: write `catalog/sources/<module>.py` with its `SOURCE`, its tests (a parser
test on a recorded payload or a fixture, its live walk in tests/fixtures/<name>/live.py), and
add one line to `_MODULES` below. tests/catalog/test_source_contract.py checks every
registered source.

A module whose name starts with `_` is a helper of one source, split from it by job
(`_skypilot_csv.py`, `_skypilot_gcp.py`: parts of skypilot.py), never registered: it has no
`SOURCE`. The helpers every parser shares are catalog/parsing.py and catalog/pages.py.
"""

from __future__ import annotations

import importlib

from gpucost.catalog.sources.base import KINDS, Source

# registry name -> module path. Add a source here and it is fetched by `gpucost refresh`.
_MODULES = {
    "aws": "gpucost.catalog.sources.aws",
    "aws_capacity_blocks": "gpucost.catalog.sources.aws_capacity_blocks",
    "azure": "gpucost.catalog.sources.azure",
    "coreweave": "gpucost.catalog.sources.coreweave",
    "crosscheck": "gpucost.catalog.sources.crosscheck",
    "crusoe": "gpucost.catalog.sources.crusoe",
    "datacrunch": "gpucost.catalog.sources.datacrunch",
    "digitalocean": "gpucost.catalog.sources.digitalocean",
    "ecb_fx": "gpucost.catalog.sources.ecb_fx",
    "epoch": "gpucost.catalog.sources.epoch",
    "fluidstack": "gpucost.catalog.sources.fluidstack",
    "gcp_pricing_page": "gpucost.catalog.sources.gcp_pricing_page",
    "gpuhunt": "gpucost.catalog.sources.gpuhunt",
    "hyperstack": "gpucost.catalog.sources.hyperstack",
    "inferencex": "gpucost.catalog.sources.inferencex",
    "lambda": "gpucost.catalog.sources.lambda_cloud",
    "mlperf": "gpucost.catalog.sources.mlperf",
    "mlperf_results": "gpucost.catalog.sources.mlperf_results",
    "mlperf_training": "gpucost.catalog.sources.mlperf_training",
    "nebius": "gpucost.catalog.sources.nebius",
    "oci": "gpucost.catalog.sources.oci",
    "paperspace": "gpucost.catalog.sources.paperspace",
    "rocm": "gpucost.catalog.sources.rocm",
    "runpod": "gpucost.catalog.sources.runpod",
    "shadeform": "gpucost.catalog.sources.shadeform",
    "skypilot": "gpucost.catalog.sources.skypilot",
    "techpowerup": "gpucost.catalog.sources.techpowerup",
    "vast": "gpucost.catalog.sources.vast",
    "voltagepark": "gpucost.catalog.sources.voltagepark",
    "wikipedia": "gpucost.catalog.sources.wikipedia",
}

__all__ = ["KINDS", "Source", "get", "module_path", "names"]


def names(kind: str | None = None) -> list[str]:
    """Registered sources, all or only those of one kind ("prices" or "specs")."""
    if kind is None:
        return sorted(_MODULES)
    if kind not in KINDS:
        raise ValueError(f"unknown source kind {kind!r}; known: {', '.join(KINDS)}")
    return [n for n in sorted(_MODULES) if get(n).kind == kind]


def module_path(name: str) -> str:
    try:
        return _MODULES[name]
    except KeyError:
        raise KeyError(f"unknown source {name!r}; known: {', '.join(names())}") from None


def get(name: str) -> Source:
    """The registered source `name` (KeyError naming the known ones otherwise)."""
    source = importlib.import_module(module_path(name)).SOURCE
    if not isinstance(source, Source) or source.name != name:
        raise TypeError(f"{module_path(name)}.SOURCE is not the Source named {name!r}")
    return source
