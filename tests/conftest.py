"""Shared pytest helpers.

`shared_data`: the real recorded data beside the project (../shared/data). Tests that need it
skip cleanly when it is absent, except on CI (CI=true), where its absence is a failure.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

# Tests never touch the user's Prefect home or warehouse: both go to throwaway folders,
# set before anything imports prefect.
_TMP = Path(tempfile.mkdtemp(prefix="gpucost-tests-"))
os.environ["PREFECT_HOME"] = str(_TMP / "prefect")
os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
os.environ["GPUCOST_DATA_DIR"] = str(_TMP / "data")

REPO_ROOT = Path(__file__).resolve().parents[1]
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


@pytest.fixture(autouse=True)
def _no_politeness_delays(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests talk to loopback servers: no per-host spacing, no robots.txt cache across tests."""
    import catalog.http

    monkeypatch.setattr(catalog.http, "HTML_MIN_INTERVAL_S", 0.0)
    monkeypatch.setattr(catalog.http, "_robots_cache", {})
    monkeypatch.setattr(catalog.http, "_host_next_slot", {})
