"""One module per external source (gpuhunt style): fetch + parse, never DuckDB.

Every source module defines:

    NAME: str                         # registry key, e.g. "azure"
    KIND: str                         # "prices" or "specs"
    DEFAULT_URL: str                  # live endpoint; overridable by GPUCOST_SOURCE_URL_<NAME>
    def fetch(session: requests.Session | None = None) -> list[Payload]
        # live fetch through catalog.http.fetch (one Payload per page / file)
    def parse(payload: Payload) -> ParseResult
        # pure function of the bytes (and payload.name as a hint); raises ParseError /
        # EmptyPayloadError on bad input, puts refused rows into ParseResult.rejects

Optional:

    def fetch_each(session=None) -> tuple[list[Payload], dict[str, FetchError]]
        # a feed of independent parts (one CSV per cloud): a failing part is recorded alone
    LIVE_STREAM: str
        # the pages of one live fetch form one snapshot (Azure NextPageLink walk): they are
        # loaded together under this stream, so the row-count guard sees the whole walk
"""

from __future__ import annotations

import importlib
from types import ModuleType

# registry name -> module path. Add a source here and it is fetched by `gpucost refresh`.
_MODULES = {
    "azure": "catalog.sources.azure",
    "skypilot": "catalog.sources.skypilot",
    "lambda": "catalog.sources.lambda_cloud",
    "aws": "catalog.sources.aws",
    "runpod": "catalog.sources.runpod",
    "vast": "catalog.sources.vast",
    "gpuhunt": "catalog.sources.gpuhunt",
    "oci": "catalog.sources.oci",
    "crosscheck": "catalog.sources.crosscheck",
    "epoch": "catalog.sources.epoch",
    "techpowerup": "catalog.sources.techpowerup",
    "wikipedia": "catalog.sources.wikipedia",
    "rocm": "catalog.sources.rocm",
    "mlperf": "catalog.sources.mlperf",
}


def names() -> list[str]:
    return sorted(_MODULES)


def get(name: str) -> ModuleType:
    try:
        path = _MODULES[name]
    except KeyError:
        raise KeyError(f"unknown source {name!r}; known: {', '.join(names())}") from None
    return importlib.import_module(path)
