"""What a refresh and `gpucost sources` tell the user.

- Text is shortened at word boundaries, never mid-word.
- Files replayed with `gpucost ingest` make a source 'replayed' (never 'ok'), dated by the
  payload's own observation date, and `sources --strict` fails on it with the reason.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import pytest

from flows import cli
from flows.progress import shorten


@pytest.fixture
def root_handlers():
    """`refresh` and `ingest` replace the root logger's console handler: put it back."""
    root = logging.getLogger()
    saved = root.handlers[:]
    yield
    root.handlers[:] = saved


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
