"""The dashboard tests (issue 42 item 5): `gpucost dashboard` served on loopback and rendered in
headless Chromium.

Every test under tests/dashboard is marked `dashboard`: the default run leaves them out
(pyproject addopts); `make dashboard-test` or
`python -m pytest -q -p no:cacheprovider -m dashboard tests/dashboard` runs them. Without the
dashboard extra (`make dashboard-setup`) or without a chromium on PATH they skip and say what
is missing; on CI (CI=true) that is a failure instead.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)  # before the `-m` selection (addopts: not dashboard) reads marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.dashboard)


def _missing(message: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def streamlit_installed() -> None:
    from gpucost.flows.cli.dashboard import streamlit_missing

    problem = streamlit_missing()
    if problem:
        _missing(problem)


@pytest.fixture(scope="session")
def chromium_binary() -> str:
    import chromium

    binary = chromium.find()
    if binary is None:
        _missing("no chromium on PATH (Debian's chromium package): the dashboard is not "
                 "rendered here; .ci/run installs it")
    return binary
