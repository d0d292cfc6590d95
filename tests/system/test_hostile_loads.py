"""Hostile dates, replays, prices and storage (issue "Hostile input", items 1, 2, 5 and 11):
each is a named refusal in one line, and the data in force and the published warehouse are
never displaced by it."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import duckdb
import pytest

from gpucost.flows.cli.main import main
from gpucost.flows.cli.output import EXIT_FAILED, EXIT_SOURCE_FAILED, EXIT_USAGE
from gpucost.flows.ingest import ingest_files

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SKY_TINY = FIXTURES / "skypilot" / "lambda_vms_tiny.csv"
EPOCH = FIXTURES / "epoch" / "ml_hardware_min.csv"
LAMBDA_PAGE = FIXTURES / "lambda" / "lambda_2026_tabs_min.html"


def _raw(data: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(data / "raw.duckdb"), read_only=True) as con:
        return con.execute(sql).fetchall()


def _published(data: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(data / "gpucost.duckdb"), read_only=True) as con:
        return con.execute(sql).fetchall()


def _scaled(src: Path, dst: Path, factor: float) -> Path:
    """The tiny SkyPilot catalog with every price times `factor`."""
    lines = src.read_text().splitlines()
    out = [lines[0]]
    for line in lines[1:]:
        cells = line.split(",")
        if cells[5]:
            cells[5] = repr(float(cells[5]) * factor)
        out.append(",".join(cells))
    dst.write_text("\n".join(out) + "\n")
    return dst


def test_a_future_date_in_a_file_name_is_refused_and_never_holds_the_stream(tmp_path, capsys,
                                                                             monkeypatch):
    """`ingest skypilot lambda_vms_2031-01-01.csv` once froze the stream: later fetches were
    loaded but never in force."""
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(tmp_path / "wh"))
    future = tmp_path / "lambda_vms_2031-01-01.csv"
    future.write_bytes(SKY_TINY.read_bytes())
    assert main(["ingest", "skypilot", str(future)]) == EXIT_SOURCE_FAILED
    out = capsys.readouterr().out
    assert "REFUSED ObservationDateError" in out and "2031-01-01" in out and "in the future" in out
    [(status, observed_at)] = _raw(tmp_path / "wh", "select status, observed_at from fetches")
    assert (status, observed_at) == ("failed", None)
    # the same bytes with a true date load and are in force
    assert main(["ingest", "skypilot", str(SKY_TINY), "--observed-at", "2026-03-01"]) == 0
    [(when,)] = _published(tmp_path / "wh", "select max(observed_at) from gpu_offers "
                                            "where source = 'skypilot'")
    assert when.year == 2026


@pytest.mark.parametrize("when", ["2031-01-01", "9999-12-31", "0001-01-01", "2009-12-31"])
def test_an_implausible_observed_at_option_is_a_usage_error(tmp_path, capsys, when):
    """`--observed-at 0001-01-01` crashed with NotImplementedError."""
    with pytest.raises(SystemExit) as info:
        main(["ingest", "skypilot", str(SKY_TINY), "--observed-at", when])
    assert info.value.code == EXIT_USAGE
    err = capsys.readouterr().err.strip()
    assert "an observation date must lie between 2010-01-01 and now" in err and "\n" not in err


def test_a_truncated_replay_is_refused_unless_forced(tmp_path):
    """A truncated Epoch replay once replaced the stream (1,324 rows in force fell to 704)."""
    data = tmp_path / "wh"
    good = tmp_path / "ml_hardware_2026-03-01.csv"
    good.write_bytes(EPOCH.read_bytes())
    truncated = tmp_path / "ml_hardware_2026-04-01.csv"
    truncated.write_text("\n".join(EPOCH.read_text().splitlines()[:2]) + "\n")
    [first], _ = ingest_files("epoch", [good], data_dir=data)
    [cut], _ = ingest_files("epoch", [truncated], data_dir=data)
    assert first.status == "replayed" and first.rows_loaded > 0
    assert (cut.status, cut.error_type) == ("failed", "RowCountCollapseError")
    assert "`ingest --force` loads it anyway" in cut.error
    [(in_force,)] = _published(data, "select rows_in_force from source_health "
                                     "where source = 'epoch'")
    assert in_force == first.rows_loaded
    [forced], published = ingest_files("epoch", [truncated], data_dir=data, force=True)
    assert forced.status == "replayed" and published is not None
    [(in_force,)] = _published(data, "select rows_in_force from source_health "
                                     "where source = 'epoch'")
    assert in_force == forced.rows_loaded < first.rows_loaded


def test_a_jump_after_a_long_silence_is_still_a_jump(tmp_path):
    """A x6 price was accepted when the previous observation was older than 90 days."""
    from datetime import UTC, datetime

    data = tmp_path / "wh"
    ingest_files("skypilot", [SKY_TINY], data_dir=data, rebuild=False,
                 observed_at=datetime(2025, 1, 1, tzinfo=UTC))
    jumped = _scaled(SKY_TINY, tmp_path / "lambda_vms_x6.csv", 6.0)
    [outcome], _ = ingest_files("skypilot", [jumped], data_dir=data, rebuild=False,
                                observed_at=datetime(2025, 9, 1, tzinfo=UTC))
    reasons = _raw(data, f"select reason, detail from rejects where fetch_id = "
                         f"{outcome.fetch_id} and reason = 'price_jump' order by detail")
    assert len(reasons) == 2  # H100 and GH200 (the A10 has no price)
    assert "31.92 -> 191.52 (6x) against the observation of 2025-01-01" in reasons[1][1]


def test_a_payload_whose_every_row_is_refused_is_a_failed_source(tmp_path, server,
                                                                 monkeypatch, capsys):
    """Every row out of band once read "live, loaded 0" and exited 0 even with --strict."""
    page = LAMBDA_PAGE.read_text()  # $1.79 -> $1000.79 per GPU-hour: out of every band
    for digit in "123456789":
        page = page.replace(f"${digit}", f"${digit}000")
    server.route = lambda path: (200, {"Content-Type": "text/html"}, page.encode())
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("GPUCOST_SOURCE_URL_LAMBDA", f"{server.base}/pricing")
    code = main(["refresh", "--no-prefect", "--strict", "--source", "lambda"])
    out = capsys.readouterr().out
    assert code == EXIT_SOURCE_FAILED
    assert "AllRowsRefusedError" in out and "every row was refused" in out
    [(status, error_type, rejected)] = _raw(
        tmp_path, "select status, error_type, rows_rejected from fetches")
    assert (status, error_type) == ("failed", "AllRowsRefusedError") and rejected > 0
    reasons = dict(_raw(tmp_path, "select reason, count(*) from rejects group by 1"))
    assert reasons["price_out_of_band"] == 3  # every priced row; kept for inspection
    assert sum(reasons.values()) == rejected


def test_an_infinite_or_huge_price_is_never_published(tmp_path):
    """Rows with an unmapped GPU were never band-checked: Infinity and 1e308 were published."""
    body = ("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,"
            "GpuInfo,SpotPrice\n"
            "x1,MysteryGPU,1.0,8,32,inf,us-east-1,,\n"
            "x2,MysteryGPU,1.0,8,32,1e308,us-east-1,,\n"
            "x3,MysteryGPU,1.0,8,32,1.5,us-east-1,,\n")
    path = tmp_path / "lambda_vms_2026-03-01.csv"
    path.write_text(body)
    [outcome], _ = ingest_files("skypilot", [path], data_dir=tmp_path / "wh")
    assert outcome.rows_loaded == 1
    reasons = sorted(r for (r,) in _raw(tmp_path / "wh", "select reason from rejects"))
    assert reasons == ["price_not_finite", "price_out_of_band"]
    [(top,)] = _raw(tmp_path / "wh", "select max(price_per_hour) from price_observations")
    assert top == 1.5
    [(published,)] = _published(tmp_path / "wh", "select count(*) from gpu_offers "
                                                 "where not isfinite(price_per_hour) "
                                                 "or price_per_hour > 1000")
    assert published == 0


def _good_warehouse(data: Path) -> int:
    ingest_files("skypilot", [SKY_TINY], data_dir=data,
                 observed_at=__import__("datetime").datetime.fromisoformat(
                     "2026-03-01T00:00:00+00:00"))
    [(n,)] = _published(data, "select count(*) from gpu_offers where source = 'skypilot'")
    return n


def test_losing_raw_duckdb_never_publishes_an_empty_warehouse(tmp_path, monkeypatch, capsys):
    """Deleting raw.duckdb once published 53 offers over 7,744 and overwrote the exports."""
    data = tmp_path / "wh"
    offers = _good_warehouse(data)
    assert offers > 0
    export = data / "exports" / "gpu_offers.csv"
    before = export.read_bytes()
    (data / "raw.duckdb").unlink()
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(data))
    monkeypatch.setenv("GPUCOST_SOURCE_URL_LAMBDA", "http://127.0.0.1:9/pricing")  # refused
    assert main(["refresh", "--no-prefect", "--source", "lambda"]) == EXIT_FAILED
    out = capsys.readouterr().out
    assert "NOT published" in out and "ShrinkRefusedError" in out
    assert "skypilot" in out and "--allow-shrink" in out
    assert export.read_bytes() == before
    [(n,)] = _published(data, "select count(*) from gpu_offers where source = 'skypilot'")
    assert n == offers
    # the operator's explicit decision
    assert main(["refresh", "--no-prefect", "--source", "lambda", "--allow-shrink"]) == 0
    [(n,)] = _published(data, "select count(*) from gpu_offers where source = 'skypilot'")
    assert n == 0


@pytest.mark.parametrize("content", [b"", b"not a database" * 100])
def test_an_unreadable_raw_duckdb_is_one_line_with_the_way_out(tmp_path, monkeypatch, capsys,
                                                              content):
    data = tmp_path / "wh"
    _good_warehouse(data)
    (data / "raw.duckdb").write_bytes(content)
    published = (data / "gpucost.duckdb").read_bytes()
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(data))
    for argv in (["refresh", "--no-prefect", "--source", "lambda"],
                 ["ingest", "skypilot", str(SKY_TINY)]):
        assert main(argv) == EXIT_FAILED
        err = capsys.readouterr().err.strip()
        assert err.startswith("error: ") and "\n" not in err
        assert "cannot be opened" in err and "Recovering the raw layer" in err
    assert (data / "raw.duckdb").read_bytes() == content  # nothing touched
    assert (data / "gpucost.duckdb").read_bytes() == published


def test_a_read_only_data_directory_is_one_line(tmp_path, monkeypatch, capsys):
    """OSError 30 on the writer lock was a traceback (tests run as root: simulated; the lock
    is opened with os.open and O_NOFOLLOW since issue 40)."""
    import os

    real_open = os.open

    def read_only(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if Path(path).name == ".writer.lock":
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", read_only)
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(tmp_path))
    assert main(["ingest", "skypilot", str(SKY_TINY)]) == EXIT_FAILED
    err = capsys.readouterr().err.strip()
    assert "cannot write to the data directory" in err and "Read-only file system" in err
    assert "\n" not in err


def test_disk_full_during_ingest_names_the_real_error_and_keeps_what_was_loaded(
        tmp_path, monkeypatch, capsys):
    """The real error was hidden behind "cannot rollback"."""
    from gpucost.warehouse.store import RawStore

    data = tmp_path / "wh"
    _good_warehouse(data)
    real_save = RawStore.save_payload

    def full(self, source, payload, when):  # type: ignore[no-untyped-def]
        if payload.name.startswith("gcp"):
            raise OSError(errno.ENOSPC, "No space left on device", str(self.payload_dir))
        return real_save(self, source, payload, when)

    monkeypatch.setattr(RawStore, "save_payload", full)
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(data))
    code = main(["ingest", "skypilot", str(FIXTURES / "skypilot" / "gcp_vms_tiny.csv")])
    err = capsys.readouterr().err.strip()
    assert code == EXIT_FAILED
    assert err.startswith("error: No space left on device") and "\n" not in err
    [(n,)] = _raw(data, "select count(*) from fetches where status = 'replayed'")
    assert n == 1  # the earlier load is intact


def test_every_row_out_of_band_fails_the_payload(tmp_path):
    """Azure prices x100: every row out of band (was a TypeError, then "loaded 0")."""
    page = json.loads((FIXTURES / "azure" / "eastus2_gpu_page_6items.json").read_text())
    for item in page["Items"]:
        for key in ("retailPrice", "unitPrice"):
            if isinstance(item.get(key), (int, float)):
                item[key] = item[key] * 100
    path = tmp_path / "eastus2_x100_2026-03-01.json"
    path.write_text(json.dumps(page))
    [outcome], published = ingest_files("azure", [path], data_dir=tmp_path / "wh")
    assert (outcome.status, outcome.error_type) == ("failed", "AllRowsRefusedError")
    assert published is not None
    reasons = dict(_raw(tmp_path / "wh", "select reason, count(*) from rejects group by 1"))
    assert reasons.get("price_out_of_band", 0) >= 1


def test_ingest_refuses_a_file_over_its_cap_without_reading_it(tmp_path, monkeypatch, capsys):
    """`ingest` had no size cap (a 200 MB CSV took 8 GB and 114 s)."""
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(tmp_path / "wh"))
    monkeypatch.setenv("GPUCOST_INGEST_MAX_BYTES", "100")
    assert main(["ingest", "skypilot", str(SKY_TINY)]) == EXIT_SOURCE_FAILED
    out = capsys.readouterr().out
    assert "REFUSED PayloadTooLargeError" in out and "GPUCOST_INGEST_MAX_BYTES" in out
    [(status, path)] = _raw(tmp_path / "wh", "select status, payload_path from fetches")
    assert (status, path) == ("failed", None)
    assert not (tmp_path / "wh" / "raw" / "skypilot").exists()  # nothing saved


def test_a_zip_member_expanding_past_its_cap_is_refused(tmp_path, monkeypatch):
    """The OCI zip was expanded without a size check (1 MB zip, 2.2 GB)."""
    import io
    import zipfile

    from gpucost.catalog import parsing
    from gpucost.catalog.records import Payload, PayloadTooLargeError
    from gpucost.catalog.sources import oci

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("shapes.json", b'{"items": [' + b" " * (4 << 20) + b"]}")
        archive.writestr("products.json", b'{"items": []}')
    monkeypatch.setattr(parsing, "MAX_UNZIPPED_BYTES", 1 << 20)
    with pytest.raises(PayloadTooLargeError, match="shapes.json expands to"):
        oci.parse(Payload(name="oci.zip", content=buffer.getvalue()))
    assert len(buffer.getvalue()) < 20_000


def test_a_corrupted_published_file_is_one_line_and_a_refresh_rebuilds_it(tmp_path,
                                                                          monkeypatch, capsys):
    data = tmp_path / "wh"
    offers = _good_warehouse(data)
    published = data / "gpucost.duckdb"
    published.write_bytes(published.read_bytes()[:100_000])
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(data))
    for argv in (["sql", "select 1"], ["tables"], ["sources"]):
        assert main(argv) == EXIT_FAILED
        err = capsys.readouterr().err.strip()
        assert "published warehouse" in err and "cannot be read" in err and "\n" not in err
    monkeypatch.setenv("GPUCOST_SOURCE_URL_LAMBDA", "http://127.0.0.1:9/pricing")  # refused
    assert main(["refresh", "--no-prefect", "--source", "lambda"]) == 0
    [(n,)] = _published(data, "select count(*) from gpu_offers where source = 'skypilot'")
    assert n == offers


def test_an_aws_history_row_with_an_extra_field_is_a_reject_not_a_crash(tmp_path):
    body = ("timestamp,instance,price_usd\n2025-04-23T18:52:57,p5.48xlarge,98.32\n"
            "2025-05-01T00:00:00,p5.48xlarge,55.04,extra,fields\n")
    path = tmp_path / "p5.48xlarge_us-east-1_ondemand_history.csv"
    path.write_text(body)
    [outcome], _ = ingest_files("aws", [path], data_dir=tmp_path / "wh")
    assert (outcome.status, outcome.rows_loaded, outcome.rows_rejected) == ("replayed", 1, 1)
    [(reason,)] = _raw(tmp_path / "wh", "select reason from rejects")
    assert reason == "malformed_row"


def test_the_same_document_under_another_name_is_counted_once(tmp_path, shared_data):
    """ROCm and MLPerf streams were named after the file: the same document ingested under
    another name counted twice. ROCm's stream is now named from the content; an MLPerf
    system's id is its file name in the results repository, and the same bytes under
    another name load nothing."""
    data = tmp_path / "wh"
    system = next((shared_data / "specs/mlperf_inference_v4.1_systems/NVIDIA").glob("*.json"))
    doc = shared_data / "specs/rocm_docs/mi300.md"
    renamed = tmp_path / "copy"
    renamed.mkdir()
    (renamed / "renamed-system.json").write_bytes(system.read_bytes())
    (renamed / "instinct.md").write_bytes(doc.read_bytes())
    ingest_files("mlperf", [system], data_dir=data, rebuild=False)
    ingest_files("rocm", [doc], data_dir=data)
    before = dict(_published(data, "select source, rows_in_force from source_health "
                                   "where source in ('mlperf', 'rocm')"))
    [again], _ = ingest_files("mlperf", [renamed / "renamed-system.json"], data_dir=data,
                              rebuild=False)
    [other], _ = ingest_files("rocm", [renamed / "instinct.md"], data_dir=data)
    assert again.status == other.status == "unchanged"
    assert other.stream == "mi300"
    after = dict(_published(data, "select source, rows_in_force from source_health "
                                  "where source in ('mlperf', 'rocm')"))
    assert after == before and before["mlperf"] > 0 and before["rocm"] > 0


def test_a_future_fetch_already_in_the_raw_layer_is_not_in_force(tmp_path, monkeypatch):
    """A raw layer written before the date check may hold a fetch dated 2031: the models
    ignore it, so the real newest payload stays in force."""
    from datetime import UTC, datetime

    from gpucost.warehouse import refusals

    data = tmp_path / "wh"
    ingest_files("skypilot", [SKY_TINY], data_dir=data, rebuild=False,
                 observed_at=datetime(2026, 3, 1, tzinfo=UTC))
    monkeypatch.setattr(refusals, "plausible", lambda when: True)  # as before the check
    doubled = _scaled(SKY_TINY, tmp_path / "lambda_vms_x2.csv", 2.0)
    [future], _ = ingest_files("skypilot", [doubled], data_dir=data,
                               observed_at=datetime(2031, 1, 1, tzinfo=UTC))
    assert future.status == "replayed"
    [(price,)] = _published(data, "select price_per_hour from gpu_offers where source = "
                                  "'skypilot' and sku = 'gpu_8x_h100_sxm5'")
    assert price == 31.92  # the 2026 payload, not the 2031 one (63.84)
