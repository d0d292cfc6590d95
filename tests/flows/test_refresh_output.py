"""What a refresh and `gpucost sources` tell the user (no Prefect server here: fast).

- Offline (every source pointed at an address that cannot resolve, like a machine with no
  network), `refresh --no-prefect` publishes the curated data and prints one line per source,
  no traceback, and ends with the verdict; under 60 lines in all. (The same run through
  Prefect is in tests/flows/test_flow_refresh.py.)
- Text is shortened at word boundaries; log records the summary already reports are not
  printed; a bug still shows its traceback.
- Files replayed with `gpucost ingest` make a source 'replayed' (never 'ok'), dated by the
  payload's own observation date, and `sources --strict` fails on it with the reason.
"""

from __future__ import annotations

import logging
import re
from datetime import UTC, datetime

import pytest

from gpucost.catalog import sources
from gpucost.flows.cli import main as cli
from gpucost.flows.progress import ConsoleLogHandler, console_for, shorten
from gpucost.flows.summary import RunSummary, SourceSummary

MAX_LINES = 60


def point_every_source_at_nowhere(monkeypatch: pytest.MonkeyPatch) -> None:
    """RFC 6761: names under .invalid never resolve, so every fetch fails its DNS lookup as on
    a machine with no network. One host per source (requests to one host are spaced)."""
    for name in sources.names():
        monkeypatch.setenv(f"GPUCOST_SOURCE_URL_{name.upper()}",
                           f"http://{name}.gpucost-offline.invalid/{name}")
        # a keyed source (shadeform) asks the network only with a key: give it a dummy one
        monkeypatch.setenv(f"GPUCOST_{name.upper()}_API_KEY", "offline-dummy-key")
    monkeypatch.setenv("GPUCOST_SOURCE_URL_CROSSCHECK_CLOUDGPUS",
                       "http://cloudgpus.gpucost-offline.invalid/cloud_gpu.json")


@pytest.fixture
def root_handlers():
    """`refresh` and `ingest` replace the root logger's console handler: put it back."""
    root = logging.getLogger()
    saved = root.handlers[:]
    yield
    root.handlers[:] = saved


def check_offline_output(out: str, err: str, n_sources: int) -> str:
    """The offline run's output: no traceback, short, stdout ending with the verdict (returned).
    """
    text = out + err
    lines = text.strip().splitlines()
    assert "Traceback" not in text
    assert len(lines) < MAX_LINES, text
    verdict = out.strip().splitlines()[-1]
    assert verdict.startswith(f"0 of {n_sources} live sources refreshed; "
                              f"{n_sources} unreachable (offline?); serving reference prices ")
    assert verdict.endswith(" days old)")
    assert sum("UnreachableError" in line for line in lines) == n_sources  # one line each
    assert any(line.startswith("published ") and "`gpucost tables`" in line for line in lines)
    return verdict


def test_offline_refresh_without_prefect(tmp_path, monkeypatch, capfd, root_handlers):
    point_every_source_at_nowhere(monkeypatch)
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(tmp_path))
    assert cli.main(["refresh", "--no-prefect"]) == 0  # published: offline is not an error
    out, err = capfd.readouterr()
    check_offline_output(out, err, len(sources.names()))
    assert re.search(r"^  reference +curated   ", out, re.M) and " d old" in out


def test_shorten_cuts_at_a_word_boundary():
    text = "UnreachableError: dstack-gpu-pricing.s3.eu-west-1.amazonaws.com unreachable: " \
           "DNS lookup failed (no network or unknown host)"
    short = shorten(text, 80)
    assert short.endswith(" ...") and len(short) <= 80
    kept = short.removesuffix(" ...")
    assert text.startswith(kept) and text[len(kept)] in " ,;:"  # cut between two words
    assert shorten("a  b\n c") == "a b c"
    long_word = "https://example.test/" + "x" * 200
    assert shorten(long_word, 50) == long_word  # one word longer than the width: kept whole


def _summary(statuses: dict[str, tuple[str, str | None]], published: bool = True) -> RunSummary:
    s = RunSummary(run_id="r", started_at=datetime.now(UTC), published=published)
    for name, (status, error_type) in statuses.items():
        s.sources.append(SourceSummary(name, status, error_type=error_type, kind="prices",
                                       data_age_days=3.04 if status == "fallback" else None))
    s.sources.append(SourceSummary("reference", "curated", rows_in_force=40,
                                   data_age_days=102.46, kind="prices"))
    return s


def test_verdict_and_final_state():
    offline = _summary({"aws": ("failed", "UnreachableError"),
                        "vast": ("fallback", "UnreachableError")})
    assert offline.verdict() == ("0 of 2 live sources refreshed; 2 unreachable (offline?); "
                                 "1 serving their last good data (up to 3.0 days old); "
                                 "serving reference prices (the newest 102.5 days old)")
    assert not offline.succeeded  # the flow run ends Failed
    partly = _summary({"aws": ("live", None), "azure": ("failed", "HttpStatusError"),
                       "vast": ("failed", "UnreachableError"), "oci": ("unchanged", None)})
    assert partly.verdict() == ("2 of 4 live sources refreshed; 1 unreachable; "
                                "1 failed (HttpStatusError)")
    assert partly.succeeded
    unpublished = _summary({"aws": ("live", None)}, published=False)
    assert unpublished.verdict().endswith("; NOT published (the previous warehouse stays)")
    assert not unpublished.succeeded


def test_console_leaves_out_what_the_summary_says(capsys):
    from gpucost.catalog.records import UnreachableError

    handler = ConsoleLogHandler(console_for(), verbose=False)
    log = logging.getLogger("gpucost.catalog.sources.example")
    log.addHandler(handler)
    log.propagate = False
    try:
        log.warning("example: part not fetched: %s", UnreachableError("host unreachable"))
        rec = logging.LogRecord("prefect.task_runs", logging.ERROR, __file__, 1,
                                "Finished in state SourceFailed('x')", None, None)
        assert not handler.filter(rec)
        log.warning("azure: stopped after the page cap of %d pages", 500)
        try:
            raise ZeroDivisionError("a bug")
        except ZeroDivisionError:
            log.exception("fetch of example failed unexpectedly")
    finally:
        log.removeHandler(handler)
        log.propagate = True
    err = capsys.readouterr().err
    assert "part not fetched" not in err  # the source's own line in the summary says it
    assert "warning: azure: stopped after the page cap of 500 pages" in err
    assert "error: fetch of example failed unexpectedly" in err
    assert "Traceback" in err and "ZeroDivisionError: a bug" in err  # a bug shows in full


# ---- replayed files ----------------------------------------------------------------------
def test_replayed_source_is_not_ok_and_fails_strict(shared_data, tmp_path, monkeypatch, capsys,
                                                    root_handlers):
    """Recorded files ingested: 'replayed', aged by the payload's own date, `--strict` exit 3;
    a file with no date of its own gets no age from the time of the ingest."""
    import json

    sky = shared_data / "prices" / "skypilot_format"
    dated, undated = sky / "lambda_vms_2026-04-02.csv", sky / "cudo_vms_113567a.csv"
    if not (dated.is_file() and undated.is_file()):
        pytest.skip("recorded SkyPilot files missing")
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(tmp_path))
    assert cli.main(["ingest", "skypilot", str(dated), str(undated)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1].startswith("published ") and "in " in out

    assert cli.main(["sources", "--format", "json"]) == 0
    rows = {r["source"]: r for r in json.loads(capsys.readouterr().out)}
    sky_row = rows["skypilot"]
    assert sky_row["health"] == "replayed" and sky_row["data_origin"] == "replayed"
    assert sky_row["last_live_success_at"] is None and sky_row["rows_in_force"] > 0
    expected_age = (datetime.now(UTC) - datetime(2026, 4, 2, tzinfo=UTC)).total_seconds() / 86400
    assert sky_row["data_age_days"] == pytest.approx(expected_age, abs=0.01)

    assert cli.main(["sources"]) == 0
    table = capsys.readouterr().out
    line = next(x for x in table.splitlines() if x.startswith("skypilot "))
    assert " replayed " in line and f"{expected_age:.1f} d" in line

    assert cli.main(["sources", "--strict"]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1  # the reason, in one line
    assert "skypilot" in err[0] and "replayed" in err[0] and "never fetched live" in err[0]


def test_undated_replay_has_no_age_from_the_ingest(shared_data, tmp_path, monkeypatch,
                                                   capsys, root_handlers):
    import json

    undated = shared_data / "prices" / "skypilot_format" / "cudo_vms_113567a.csv"
    if not undated.is_file():
        pytest.skip("recorded SkyPilot file missing")
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(tmp_path))
    assert cli.main(["ingest", "skypilot", str(undated)]) == 0
    capsys.readouterr()
    assert cli.main(["sources", "--format", "json"]) == 0
    row = {r["source"]: r for r in json.loads(capsys.readouterr().out)}["skypilot"]
    assert row["health"] == "replayed" and row["rows_in_force"] > 0
    assert row["data_age_days"] is None  # not "0.0 days": the ingest time is no observation
    assert cli.main(["sources"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("skypilot "))
    assert " unknown " in line
