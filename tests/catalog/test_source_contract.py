"""Every registered source fulfils the one contract (catalog/sources/base.py).

In the spirit of gpuhunt's provider meta-tests: each module under catalog/sources is
registered under its own name with a typed `Source`; the pipeline can fetch it through the
contract alone, from a loopback server serving its good live walk (tests/support/fault_matrix.py),
and what comes parses to rows; an unreachable endpoint is a named FetchError; nothing but the
contract is exposed (no per-module fetch functions or retry constants).
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import fault_matrix as fm
import pytest

from gpucost.catalog import sources
from gpucost.catalog.records import FetchError, PartsFailedError, UnreachableError
from gpucost.catalog.sources.base import KINDS, Source

SOURCES_DIR = Path(sources.__file__).resolve().parent
NAMES = sources.names()


def test_every_module_is_registered_once() -> None:
    # a module named _<name> is a helper of a source (catalog/sources/__init__.py), not one
    helpers = {p.stem for p in SOURCES_DIR.glob("_*.py")} - {"__init__"}
    modules = {p.stem for p in SOURCES_DIR.glob("*.py")} - {"__init__", "base"} - helpers
    registered = {sources.module_path(n).rsplit(".", 1)[1] for n in NAMES}
    assert modules == registered
    assert len(registered) == len(NAMES)
    for helper in helpers:  # a source cannot hide behind a helper's name
        module = importlib.import_module(f"{sources.__name__}.{helper}")
        assert not hasattr(module, "SOURCE"), f"{helper} declares a SOURCE: register it"


@pytest.mark.parametrize("name", NAMES)
def test_source_declares_the_contract(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    source = sources.get(name)
    assert isinstance(source, Source) and source.name == name
    assert source.kind in KINDS
    assert source.default_url.startswith("https://")
    assert source.description and callable(source.parse)
    module = importlib.import_module(sources.module_path(name))
    for legacy in ("fetch", "fetch_each", "BACKOFF_S", "POLITENESS_S", "KIND", "LIVE_STREAM"):
        assert not hasattr(module, legacy), f"{name}: {legacy} bypasses the contract"
    # the endpoint is overridable by configuration
    monkeypatch.setenv(f"GPUCOST_SOURCE_URL_{name.upper()}", "http://127.0.0.1:1/x")
    assert source.url == "http://127.0.0.1:1/x"
    assert name in sources.names(source.kind)


@pytest.fixture(scope="module")
def matrix_server():
    with fm.fast_clients(), fm.MatrixServer(NAMES).serving() as server:
        yield server


@pytest.mark.parametrize("name", NAMES)
def test_source_fetches_and_parses_its_live_walk(name: str, matrix_server: fm.MatrixServer,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the contract alone: fetch from loopback, parse every payload to rows."""
    for key, value in matrix_server.env.items():
        monkeypatch.setenv(key, value)
    matrix_server.assignment = {}  # every source served good
    source = sources.get(name)
    fetched = source.fetch()
    assert fetched.payloads and fetched.errors == {}
    rows = 0
    for payload in fetched.payloads:
        result = source.parse(payload)
        rows += result.n_rows
    assert rows > 0
    assert all(p.url.startswith(matrix_server.base) for p in fetched.payloads)


@pytest.mark.parametrize("name", NAMES)
def test_unreachable_endpoint_is_a_named_error(name: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    for other in NAMES + ["crosscheck_cloudgpus"]:
        monkeypatch.setenv(f"GPUCOST_SOURCE_URL_{other.upper()}", "http://127.0.0.1:9/closed")
    for key, value in fm.live_documents(name, "").extra_env.items():  # a keyed source's key
        monkeypatch.setenv(key, value)
    with fm.fast_clients(), pytest.raises(FetchError) as info:
        sources.get(name).fetch()
    errors = info.value.errors.values() if isinstance(info.value, PartsFailedError) \
        else [info.value]
    assert all(isinstance(e, UnreachableError) for e in errors)
    assert sum(not str(e).startswith("not tried") for e in errors) == 1  # one host, one try


def test_parts_can_be_limited_by_configuration(matrix_server: fm.MatrixServer,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in matrix_server.env.items():
        monkeypatch.setenv(key, value)
    matrix_server.assignment = {}
    monkeypatch.setenv("GPUCOST_SOURCE_PARTS_CROSSCHECK", "cloud-gpus")
    fetched = sources.get("crosscheck").fetch()
    assert [p.name for p in fetched.payloads] == ["cloud_gpu.json"]
    assert os.environ["GPUCOST_SOURCE_PARTS_CROSSCHECK"] == "cloud-gpus"
