"""Fault injection (docs/reliability.md): every fault, every live source, on loopback.

Each fault gives a named error for the failing source only, the run still publishes with the
control source live, and the failing source's last good data stays in force.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import fault_matrix as fm
import pytest

from catalog import sources


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("baseline")
    fm.make_baseline(path)
    return path


@pytest.fixture
def fast_clients() -> Iterator[None]:
    with fm.fast_clients():
        yield


def test_every_live_source_is_in_the_fault_matrix() -> None:
    assert set(sources.names()) == set(fm.GOOD_FIXTURES), (
        "add each new source to tests/fault_matrix.py GOOD_FIXTURES (a good fixture + format)")


@pytest.mark.parametrize("fault", fm.FAULTS, ids=[f.name for f in fm.FAULTS])
def test_fault_is_named_isolated_and_loses_nothing(fault, baseline, tmp_path, monkeypatch,
                                                   fast_clients):
    observed = fm.run_fault(fault, baseline, tmp_path, monkeypatch.setenv)
    assert {o.source for o in observed} == set(fm.GOOD_FIXTURES)
    bad = [o for o in observed if not o.ok]
    assert not bad, "\n".join(
        f"{o.source}: status={o.status} error={o.error_type}: {o.error} published={o.published}"
        f" control_live={o.control_live} rows {o.rows_before}->{o.rows_after}" for o in bad)
