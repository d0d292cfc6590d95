"""The exchange-rate raw table (raw.fx_observations, warehouse/store.py): a reload of the ECB
history adds nothing, a newer history adds only its new day, and a refetch stays cheap. The
recorded history (../shared/data/fx/eurofxref-hist.zip) holds 221,702 rates (7,126 days, the
N/A cells left out); the day added below restates 2026-10-30's 29 quoted currencies."""

from __future__ import annotations

import io
import time
import zipfile
from pathlib import Path

import duckdb

from gpucost.flows.ingest import ingest_files

HISTORY = Path("fx") / "eurofxref-hist.zip"


def _count(data: Path) -> int:
    con = duckdb.connect(str(data / "raw.duckdb"), read_only=True)
    try:
        return con.execute("select count(*) from fx_observations").fetchone()[0]
    finally:
        con.close()


def _rezip(csv: bytes, path: Path) -> Path:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("eurofxref-hist.csv", csv)
    path.write_bytes(buffer.getvalue())
    return path


def test_history_reload_adds_nothing_and_a_new_day_adds_its_rates(
        shared_data: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    recorded = shared_data / HISTORY
    [first], _ = ingest_files("ecb_fx", [recorded], data_dir=data, rebuild=False)
    assert (first.status, first.rows_loaded) == ("replayed", 221_702)
    assert _count(data) == 221_702

    # the same bytes: unchanged, nothing written
    [again], _ = ingest_files("ecb_fx", [recorded], data_dir=data, rebuild=False)
    assert again.status == "unchanged" and _count(data) == 221_702

    # the same history in other bytes (zipped again, as the ECB's file is every day): every
    # rate is known, none is written; the fetch still states its 221,702 rates
    csv = zipfile.ZipFile(recorded).read("eurofxref-hist.csv")
    t0 = time.perf_counter()
    [rezipped], _ = ingest_files("ecb_fx", [_rezip(csv, tmp_path / "eurofxref-hist.zip")],
                                 data_dir=data, rebuild=False)
    seconds = time.perf_counter() - t0
    assert (rezipped.status, rezipped.rows_loaded) == ("replayed", 221_702)
    assert _count(data) == 221_702
    assert seconds < 30  # measured about 1 s on the project machine

    # tomorrow's history: one more day on top (2026-11-02, 2026-10-30's 29 rates restated)
    lines = csv.splitlines(keepends=True)
    new_day = lines[1].replace(b"2026-10-30", b"2026-11-02")
    newer = _rezip(lines[0] + new_day + b"".join(lines[1:]), tmp_path / "hist-1102.zip")
    [added], _ = ingest_files("ecb_fx", [newer], data_dir=data, rebuild=False)
    assert added.status == "replayed" and added.rows_loaded == 221_702 + 29
    assert _count(data) == 221_702 + 29
