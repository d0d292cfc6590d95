"""Shared pytest helpers.

`shared_data`: the real recorded data beside the project (../shared/data). Tests that need it
skip cleanly when it is absent, except on CI (CI=true), where its absence is a failure.
"""

from __future__ import annotations

import os
import sys
import tempfile
from datetime import UTC
from pathlib import Path

import pytest

# Tests never touch the user's Prefect home or warehouse: both go to throwaway folders,
# set before anything imports prefect.
_TMP = Path(tempfile.mkdtemp(prefix="gpucost-tests-"))
os.environ["PREFECT_HOME"] = str(_TMP / "prefect")
os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
os.environ["GPUCOST_DATA_DIR"] = str(_TMP / "data")
# and never leave a long-lived local Prefect server behind (flows/prefect_server.py)
os.environ["GPUCOST_PREFECT_SERVER"] = "temporary"

REPO_ROOT = Path(__file__).resolve().parents[1]
# Tests are grouped by room (tests/catalog, warehouse, models, flows, system); their shared
# helpers (loopback servers, the fault matrix, live walks, the Chromium driver, test-only
# sources) live in tests/support and are imported by module name.
sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Path of ../shared/data; skips the test when it is missing (fails on CI)."""
    if not SHARED_DATA.is_dir():
        message = f"shared recorded data not found at {SHARED_DATA}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return SHARED_DATA


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """A recording loopback server (tests/support/loopback.py): set `server.route` to
    `route(path)` or `route(method, path, body)`; `server.requests` lists what was asked."""
    import loopback

    monkeypatch.setenv("NO_PROXY", "127.0.0.1,127.0.0.2,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,127.0.0.2,localhost")
    with loopback.local_server() as state:
        yield state


@pytest.fixture(autouse=True)
def _no_politeness_delays(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests talk to loopback servers: no per-host spacing, no retry backoff, no robots.txt
    cache across tests."""
    import gpucost.catalog.http

    monkeypatch.setattr(gpucost.catalog.http, "HTML_MIN_INTERVAL_S", 0.0)
    monkeypatch.setattr(gpucost.catalog.http, "PACING", 0.0)
    monkeypatch.setattr(gpucost.catalog.http, "DEFAULT_BACKOFF_S", 0.0)
    monkeypatch.setattr(gpucost.catalog.http, "_robots_cache", {})
    monkeypatch.setattr(gpucost.catalog.http, "_host_next_slot", {})


@pytest.fixture(scope="session")
def service_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A published warehouse (with exports) built from the project's own fixtures.

    SkyPilot lambda catalogs of 2026-03-01 and 2026-03-08 (prices changed, one GPU name is a
    script-injection attempt), a GCP catalog, the 2026 Lambda page, and a truncated Azure page
    that is refused (a source with a last error). One publish for the session.
    """
    from datetime import datetime

    from gpucost.flows.ingest import ingest_files
    from gpucost.flows.steps import build_and_publish

    data = tmp_path_factory.mktemp("service-wh")
    sky = FIXTURES / "skypilot"
    feeds = [
        ("skypilot", sky / "lambda_vms_tiny.csv", datetime(2026, 3, 1, tzinfo=UTC)),
        ("skypilot", FIXTURES / "service" / "lambda_vms_2026-03-08.csv",
         datetime(2026, 3, 8, tzinfo=UTC)),
        ("skypilot", sky / "gcp_vms_tiny.csv", datetime(2026, 3, 8, tzinfo=UTC)),
        ("lambda", FIXTURES / "lambda" / "lambda_2026_tabs_min.html",
         datetime(2026, 3, 8, tzinfo=UTC)),  # a page without a capture date: say when
        ("azure", FIXTURES / "azure" / "truncated_page.json", datetime(2026, 3, 9, tzinfo=UTC)),
    ]
    for source, path, when in feeds:
        ingest_files(source, [path], observed_at=when, data_dir=data, rebuild=False)
    build_and_publish(data)
    return data
