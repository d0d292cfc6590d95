"""Fault injection (docs/reliability.md): every fault, every live source, on loopback.

Each fault gives a named error for the failing source only, the run still publishes with its
control sources live, and the failing source's last good data stays in force. The schedule
(tests/support/fault_matrix.py) runs every (source, fault) pair once, in 18 refresh runs shared
by the per-fault tests below.
"""

from __future__ import annotations

from collections import Counter

import fault_matrix as fm
import pytest

from gpucost.catalog import sources


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> list[fm.Observed]:
    baseline = tmp_path_factory.mktemp("baseline")
    work = tmp_path_factory.mktemp("runs")
    with pytest.MonkeyPatch.context() as mp, fm.fast_clients():
        mp.setenv("GPUCOST_DATA_DIR", str(work / "unused"))
        fm.make_baseline(baseline)
        return fm.run_matrix(baseline, work, mp.setenv)


def test_every_live_source_is_in_the_fault_matrix() -> None:
    assert set(sources.names()) == set(fm.GOOD_FIXTURES), (
        "add tests/fixtures/<source>/live.py (BASELINE, documents) for each new source")
    for name in sources.names():  # its live walk is described (raises KeyError if not)
        assert fm.live_documents(name, "http://127.0.0.1:1").docs


def test_schedule_runs_every_pair_once_with_controls() -> None:
    names = sources.names()
    runs = fm.schedule(names)
    pairs = Counter((s, f) for run in runs for s, f in run.items() if f is not None)
    assert pairs == Counter({(s, f.name): 1 for s in names for f in fm.FAULTS})
    assert all(sum(f is None for f in run.values()) >= 2 for run in runs)
    assert len(runs) == 2 * len(fm.SLOW_FAULTS) + len(fm.FAULTS) - len(fm.SLOW_FAULTS) + 2


def test_matrix_observes_every_pair(matrix: list[fm.Observed]) -> None:
    assert Counter((o.source, o.fault) for o in matrix) == Counter(
        {(s, f.name): 1 for s in fm.GOOD_FIXTURES for f in fm.FAULTS})


@pytest.mark.parametrize("fault", fm.FAULTS, ids=[f.name for f in fm.FAULTS])
def test_fault_is_named_isolated_and_loses_nothing(fault: fm.Fault,
                                                   matrix: list[fm.Observed]) -> None:
    observed = [o for o in matrix if o.fault == fault.name]
    assert {o.source for o in observed} == set(fm.GOOD_FIXTURES)
    bad = [o for o in observed if not o.ok]
    assert not bad, "\n".join(
        f"{o.source} (run {o.run}): status={o.status} errors={o.error_types}: {o.error}"
        f" expected={sorted(o.expected)} published={o.published} controls={o.controls}"
        f" live={o.controls_live} rows {o.rows_before}->{o.rows_after} lost={o.lost}"
        for o in bad)

