"""Hostile round 4 (issue 40): data at rest, planted links, huge answers, URL overrides.

Each case is a named one-line refusal or a recovery, with nothing lost and no traceback; the
published data stays as it was or is rebuilt equal to a clean build. The cases are listed in
tests/support/hostile_cases.py (ROUND4_CASES) and docs/reliability.md.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import pytest

from gpucost.flows.cli.main import main
from gpucost.flows.cli.output import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from gpucost.flows.ingest import ingest_files
from gpucost.flows.steps import build_and_publish

ROOT = Path(__file__).resolve().parents[2]
HEADER = 3 * 4096  # a DuckDB file's headers; block n starts at HEADER + n * block_size
# the marts whose blocks are damaged: what offers, sources, report and estimate read first
READ_BY_EVERY_COMMAND = ("gpu_offers", "source_health", "accelerators", "accelerator_aliases")


@pytest.fixture
def wh(service_warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the session's published warehouse (modification times kept, so its publish
    record still holds), as GPUCOST_DATA_DIR; every live source points nowhere."""
    data = tmp_path / "wh"
    shutil.copytree(service_warehouse, data, symlinks=True)
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(data))
    monkeypatch.setenv("GPUCOST_SOURCE_URL_LAMBDA", "http://127.0.0.1:9/pricing")  # refused
    return data


def _rows(path: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute(sql).fetchall()


def _blocks(path: Path, tables: tuple[str, ...]) -> tuple[int, list[int]]:
    """(block size, the data blocks of `tables`) of a DuckDB file."""
    with duckdb.connect(str(path), read_only=True) as con:
        size = con.execute("select block_size from pragma_database_size()").fetchone()[0]
        blocks = sorted({b for t in tables for (b,) in con.execute(
            f"select distinct block_id from pragma_storage_info('{t}') where block_id >= 0"
        ).fetchall()})
    return size, blocks


def _flip_one_bit(path: Path, tables: tuple[str, ...]) -> None:
    """Bit rot: one bit flipped in the first bytes of each data block of `tables` (after
    the block's 8-byte checksum), the file's size and modification time kept."""
    size, blocks = _blocks(path, tables)
    assert blocks
    st = path.stat()
    with open(path, "r+b") as fh:
        for block in blocks:
            fh.seek(HEADER + block * size + 8 + 16)
            byte = fh.read(1)
            fh.seek(-1, os.SEEK_CUR)
            fh.write(bytes([byte[0] ^ 0x01]))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size


def _one_line(text: str) -> str:
    text = text.strip()
    assert text and "\n" not in text and "Traceback" not in text, text
    return text


# columns counted from the moment of the build (a day's tenth turns every 2.4 h): a rebuild
# later in the session than the clean build may differ there alone
BUILD_TIME_COLUMNS = {"gpu_offers": "age_days"}


def _clean_rows(data: Path, table: str) -> list[tuple]:
    """The table's rows, sorted, without the columns counted from the build's own time."""
    drop = BUILD_TIME_COLUMNS.get(table)
    columns = f"* exclude ({drop})" if drop else "*"
    return sorted(_rows(data / "gpucost.duckdb", f"select {columns} from {table}"), key=repr)


# -- data at rest ---------------------------------------------------------------------------

def test_a_corrupted_block_in_the_published_file_is_one_line_for_every_reader(
        wh: Path, service_warehouse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`offers`, `sources`, `report`, `estimate` and `sql` ended in `_duckdb.Error: Corrupt
    database file: computed checksum ... does not match`: now one line naming the published
    file as corrupted and the way out (the next refresh), exit 1; and that refresh rebuilds
    it equal to the clean build."""
    _flip_one_bit(wh / "gpucost.duckdb", READ_BY_EVERY_COMMAND)
    for argv in (["offers", "H100"], ["sources"], ["report", "-o", str(wh / "r.html")],
                 ["estimate", "training", "-a", "nvidia-h100-sxm5-80gb", "--params", "7e9"],
                 ["sql", "select * from gpu_offers"],
                 ["sql", "select * from gpu_offers", "--format", "json"]):
        assert main(argv) == EXIT_FAILED, argv
        err = _one_line(capsys.readouterr().err)
        assert "published warehouse" in err and "is corrupted" in err, (argv, err)
        assert "gpucost refresh" in err and "rebuilds it in full" in err, err
    assert not (wh / "r.html").exists()
    assert main(["refresh", "--no-prefect", "--source", "lambda"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "price history rebuilt in full: the published file is corrupted" in out
    # equal to the clean build (source_health differs by the refused lambda fetch alone)
    for table in ("gpu_offers", "accelerators", "accelerator_aliases", "price_history"):
        assert _clean_rows(wh, table) == _clean_rows(service_warehouse, table), table


def test_bit_rot_in_the_published_price_history_is_rebuilt_in_full(
        wh: Path, service_warehouse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One bit flipped inside price_history, the size and modification time kept: refreshes
    built on the damaged base and exited 0. The file's sha256 recorded at its publish differs
    now: the refresh rebuilds in full from the raw layer, says so, and the published
    price_history equals the clean build's (cost of the check: the sha256 of the file, about
    16 ms for the 26 MB published file fully loaded with the recorded data)."""
    record = json.loads((wh / "published.json").read_text())
    assert len(record["sha256"]) == 64
    _flip_one_bit(wh / "gpucost.duckdb", ("price_history",))
    assert main(["refresh", "--no-prefect", "--source", "lambda"]) == EXIT_OK
    out = capsys.readouterr().out
    assert ("price history rebuilt in full: the published file is corrupted (its bytes "
            "differ from its publish at the same size and time: bit rot or a damaged disk)") \
        in out
    assert _clean_rows(wh, "price_history") == _clean_rows(service_warehouse, "price_history")
    assert main(["sql", "select count(*) from price_history"]) == EXIT_OK


def test_a_corrupted_raw_block_is_named_with_its_table_and_the_way_out(
        wh: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A corrupted block of raw.duckdb (table fetches) ended a refresh in `FatalException:
    Failed to create checkpoint` with a traceback. raw.duckdb is now read whole (every block's
    DuckDB checksum) before a refresh or an ingest uses it: one line naming the table and the
    recovery of docs/operations.md, exit 1, nothing fetched, the published file untouched."""
    published = (wh / "gpucost.duckdb").read_bytes()
    _flip_one_bit(wh / "raw.duckdb", ("fetches",))
    for argv in (["refresh", "--no-prefect", "--source", "lambda"],
                 ["ingest", "skypilot", str(ROOT / "tests/fixtures/skypilot/gcp_vms_tiny.csv"),
                  "--observed-at", "2026-03-10"]):
        assert main(argv) == EXIT_FAILED, argv
        captured = capsys.readouterr()
        err = _one_line(captured.err)
        assert "raw.duckdb is corrupted: table fetches fails DuckDB's block checksum" in err
        assert "Recovering the raw layer" in err and "published warehouse stays" in err
        assert "Traceback" not in captured.out
    assert (wh / "gpucost.duckdb").read_bytes() == published
    assert "### Recovering the raw layer" in (ROOT / "docs/operations.md").read_text()
    # met during a load instead (the check passed, the block went bad since): DuckDB's
    # "FATAL Error: Failed to create checkpoint" becomes the same named error, its table found
    from datetime import UTC, datetime

    from gpucost.warehouse.store import RawStore, RawStoreCorruptError

    store = RawStore(wh)
    with pytest.raises(RawStoreCorruptError, match="table fetches fails DuckDB's block checksum"):
        with store.connect() as con:
            store.record_failure(con, run_id="r", source="lambda", mode="live",
                                 started_at=datetime.now(UTC), finished_at=datetime.now(UTC),
                                 error=RuntimeError("unreachable"))


def test_a_full_disk_during_publish_leaves_no_partial_file(
        wh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk while the build copies the published file (simulated: the copy writes
    half the file, then raises ENOSPC) left gpucost_next.duckdb (15 MB) behind. The partial
    file is removed; the published file and its exports stay as they were."""
    import gpucost.warehouse.publish as publish

    published = (wh / "gpucost.duckdb").read_bytes()
    export = (wh / "exports" / "gpu_offers.csv").read_bytes()

    def half_then_full(src: Path, dst: Path) -> None:
        Path(dst).write_bytes(Path(src).read_bytes()[: len(published) // 2])
        raise OSError(errno.ENOSPC, "No space left on device", str(dst))

    monkeypatch.setattr(publish.shutil, "copyfile", half_then_full)
    with pytest.raises(OSError, match="No space left"):
        build_and_publish(wh)
    assert not (wh / "gpucost_next.duckdb").exists()
    assert not (wh / "gpucost_next.duckdb.wal").exists()
    assert (wh / "gpucost.duckdb").read_bytes() == published
    assert (wh / "exports" / "gpu_offers.csv").read_bytes() == export


FSIZE_PUBLISH = textwrap.dedent("""
    import resource, signal, sys
    from pathlib import Path
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the limit a write fails with EFBIG
    limit = int(sys.argv[2])
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    from gpucost.flows.steps import build_and_publish
    try:
        build_and_publish(Path(sys.argv[1]), full=True)
    except Exception as exc:
        print(type(exc).__name__, str(exc)[:200])
""")


def test_a_file_size_limit_during_the_build_leaves_no_partial_file(wh: Path) -> None:
    """The same without monkeypatching, in a child process whose files may not grow past
    half the published file's size (RLIMIT_FSIZE: the kernel's EFBIG, as a full disk's
    ENOSPC): a full rebuild fails at its checkpoint and removes gpucost_next.duckdb."""
    published = (wh / "gpucost.duckdb").read_bytes()
    run = subprocess.run([sys.executable, "-c", FSIZE_PUBLISH, str(wh), str(len(published) // 2)],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert "Traceback" not in run.stderr, run.stderr
    assert "File too large" in run.stdout, run.stdout
    assert not (wh / "gpucost_next.duckdb").exists()
    assert (wh / "gpucost.duckdb").read_bytes() == published


def test_a_dated_one_row_file_into_an_undated_stream_is_refused_by_the_row_guard(
        tmp_path: Path, shared_data: Path) -> None:
    """SkyPilot's cudo catalog replayed without a date (156 rows: the file's 157 lines less
    its header), then a 1-row file of the same stream dated 2026-01-01: the dated payload
    outranks the undated one in force (int_fetches_in_force), so offers in force fell 156 ->
    1 with exit 0. The row guard now treats a stream whose last payload was undated like any
    other: RowCountCollapseError, the 156 rows stay in force."""
    data = tmp_path / "wh"
    catalog = shared_data / "prices" / "skypilot_format" / "cudo_vms_113567a.csv"
    lines = catalog.read_text().splitlines()
    [undated], _ = ingest_files("skypilot", [catalog], data_dir=data, rebuild=False)
    assert (undated.status, undated.rows_loaded, undated.stream) == ("replayed", 156, "cudo")
    one = tmp_path / "one" / catalog.name
    one.parent.mkdir()
    one.write_text("\n".join(lines[:2]) + "\n")
    from datetime import UTC, datetime

    [dated], _ = ingest_files("skypilot", [one], data_dir=data, rebuild=False,
                              observed_at=datetime(2026, 1, 1, tzinfo=UTC))
    assert (dated.status, dated.error_type) == ("failed", "RowCountCollapseError")
    assert "1 rows against 156 in the last good payload" in dated.error
    [(in_force,)] = _rows(data / "raw.duckdb",
                          "select count(*) from fetches where status = 'replayed' "
                          "and error_type is null and source = 'skypilot'")
    assert in_force == 1
    # the operator's explicit decision still loads it
    [forced], _ = ingest_files("skypilot", [one], data_dir=data, rebuild=False, force=True,
                               observed_at=datetime(2026, 1, 1, tzinfo=UTC))
    assert (forced.status, forced.rows_loaded) == ("replayed", 1)


# -- files and links ------------------------------------------------------------------------

def test_a_symlink_planted_at_a_temporary_name_is_never_written_through(
        wh: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A symlink at `<data dir>/published.json.tmp` made the next refresh write the publish
    record through it into the link's target. Every file gpucost writes in the data dir is
    now created without following links (warehouse/files.py: a fresh name from mkstemp and
    os.replace, or the name cleared then opened O_EXCL | O_NOFOLLOW); the targets keep their
    bytes and the refresh publishes."""
    target = tmp_path / "precious.txt"
    target.write_text("precious")
    exports = wh / "exports"
    pid = os.getpid()
    planted = [wh / "published.json.tmp", wh / f".published.json.tmp-{pid}",
               exports / f".tmp-{pid}-gpu_offers.csv", exports / f".tmp-{pid}-schema.json",
               exports / f".tmp-{pid}-price_changes.json", exports / f".tmp-link-{pid}-latest"]
    for link in planted:
        link.symlink_to(target)
    assert main(["refresh", "--no-prefect", "--source", "lambda"]) == EXIT_OK
    capsys.readouterr()
    assert target.read_text() == "precious"
    record = wh / "published.json"
    assert record.is_file() and not record.is_symlink()
    assert json.loads(record.read_text())["sha256"]
    # the export itself is a file of the snapshot `latest` names (exports/gpu_offers.csv is
    # the relative link latest/gpu_offers.csv: warehouse/exports.py)
    snapshot = exports / os.readlink(exports / "latest")
    assert (snapshot / "gpu_offers.csv").is_file()
    assert not (snapshot / "gpu_offers.csv").is_symlink() and not snapshot.is_symlink()
    assert os.readlink(exports / "gpu_offers.csv") == "latest/gpu_offers.csv"
    # a link planted at the writer lock: refused by name, never opened
    (wh / ".writer.lock").unlink()
    (wh / ".writer.lock").symlink_to(target)
    assert main(["refresh", "--no-prefect", "--source", "lambda"]) == EXIT_FAILED
    err = _one_line(capsys.readouterr().err)
    assert ".writer.lock is a symbolic link" in err
    assert target.read_text() == "precious"


def test_report_output_onto_a_fifo_is_refused_by_name(
        wh: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`report -o /dev/null` (run as root) replaced the character device with the report.
    `report -o` writes only regular files: a FIFO (made here with os.mkfifo, no root needed;
    a device or a socket takes the same path) is refused by name, exit 2, and stays a FIFO."""
    import stat

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert main(["report", "-o", str(fifo)]) == EXIT_USAGE
    err = _one_line(capsys.readouterr().err)
    assert err.startswith(f"error: -o {fifo}: a FIFO; the report is written only as a regular")
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    link = tmp_path / "link"
    link.symlink_to(fifo)
    assert main(["report", "-o", str(link)]) == EXIT_USAGE
    assert "a FIFO" in capsys.readouterr().err
    assert main(["report", "-o", str(tmp_path / "r.html")]) == EXIT_OK


# -- answers too big ------------------------------------------------------------------------

# the child's own peak: VmHWM of its address space (getrusage's ru_maxrss would start from
# the pytest parent's RSS at fork, which Linux keeps across exec)
SQL_CHILD = textwrap.dedent("""
    import sys
    from gpucost.flows.cli.main import main
    code = main(sys.argv[1:])
    sys.stdout.flush()
    status = open("/proc/self/status").read().split("VmHWM:")[1].split()
    print(f"peak_rss_mb={int(status[0]) / 1024:.0f} exit={code}", file=sys.stderr)
""")


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_sql_streams_csv_and_json_in_bounded_memory(
        wh: Path, tmp_path: Path, fmt: str) -> None:
    """`sql --format json "select * from range(10000000)"` took 311 s and 4.9 GB (CSV 1.1 GB):
    the whole answer was fetched, then built as Python objects. It is written as it arrives
    now. 1,000,000 rows (was about 490 MB of JSON objects) in a child process: its peak RSS
    (VmHWM) stays under 150 MB (about 90 MB measured; the whole-list writer took 542 MB for
    these rows), and the answer is whole: the sum of 0..999,999 is 999,999 x
    1,000,000 / 2 = 499,999,500,000."""
    out = tmp_path / f"answer.{fmt}"
    with open(out, "w") as fh:
        run = subprocess.run(
            [sys.executable, "-c", SQL_CHILD, "sql", "--format", fmt,
             "select range as i from range(1000000)"],
            stdout=fh, stderr=subprocess.PIPE, text=True, timeout=300, cwd=ROOT,
            env={**os.environ, "GPUCOST_DATA_DIR": str(wh)})
    last = run.stderr.strip().splitlines()[-1]
    assert last.endswith("exit=0"), run.stderr
    peak = float(last.split()[0].split("=")[1])
    assert peak < 150, peak
    if fmt == "json":
        values = [row["i"] for row in json.loads(out.read_text())]
    else:
        lines = out.read_text().splitlines()
        assert lines[0] == "i"
        values = [int(v) for v in lines[1:]]
    assert len(values) == 1_000_000 and sum(values) == 499_999_500_000


def test_sql_json_streamed_is_the_text_write_json_prints(
        wh: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The streamed JSON is byte for byte what the whole-list writer printed: nested lists
    and structs, dates, NaN as null, a repeated column name (its first place, last value)."""
    import io

    from gpucost.flows.cli.output import write_json

    query = ("select 1 as a, 'é\"x' as b, null as c, 'nan'::double as d, "
             "date '2026-01-01' as e, [[1, 2], [3]] as f, {'k': 'v', 'n': [1.5]} as g, "
             "12.30::decimal(10, 2) as h, 'last' as a from range(3)")
    assert main(["sql", query, "--format", "json"]) == EXIT_OK
    streamed = capsys.readouterr().out
    with duckdb.connect() as con:
        cur = con.execute(query)
        cols = [d[0] for d in cur.description]
        expected = io.StringIO()
        write_json([dict(zip(cols, r, strict=True)) for r in cur.fetchall()], expected)
    assert streamed == expected.getvalue()
    assert main(["sql", "select 1 as a where false", "--format", "json"]) == EXIT_OK
    assert capsys.readouterr().out == "[]\n"


def test_sql_has_a_memory_limit_and_refuses_huge_queries_by_name(
        wh: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """No memory limit applied to `sql`; a 6 MB query of 3,000,000 columns peaked at 6.3 GB
    before DuckDB's out-of-memory error. Now: DuckDB's memory_limit is 1 GB by default
    (GPUCOST_SQL_MEMORY_LIMIT, --memory-limit), past it the query stops with a named line;
    a query over 1 MB and an answer over 10,000 columns are refused by name."""
    assert main(["sql", "select current_setting('memory_limit') as m", "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[1] in ("1.0 GiB", "953.6 MiB")
    monkeypatch.setenv("GPUCOST_SQL_MEMORY_LIMIT", "64MB")
    assert main(["sql", "select current_setting('memory_limit') as m", "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[1] in ("61.0 MiB", "64.0 MiB")
    assert main(["sql", "--memory-limit", "20MB", "--format", "csv",
                 "select count(distinct range::varchar || 'x') from range(5000000)"]) \
        == EXIT_FAILED
    err = _one_line(capsys.readouterr().err)
    assert "needs more memory than its limit (memory_limit 20MB" in err
    with pytest.raises(SystemExit) as usage:
        main(["sql", "--memory-limit", "lots", "select 1"])
    assert usage.value.code == EXIT_USAGE
    assert "not a memory size: 'lots'" in _one_line(capsys.readouterr().err)
    wide = "select " + ", ".join(["1"] * 3_000_000)
    assert main(["sql", wide]) == EXIT_USAGE
    err = _one_line(capsys.readouterr().err)
    assert "the query is 9.0 MB, over the 1 MB cap" in err
    monkeypatch.delenv("GPUCOST_SQL_MEMORY_LIMIT")
    many = "select " + ", ".join(f"1 as c{i}" for i in range(10_001))
    for fmt in ("table", "csv"):
        assert main(["sql", many, "--format", fmt]) == EXIT_FAILED
        err = _one_line(capsys.readouterr().err)
        assert "the answer has 10,001 columns, over the 10,000" in err


# -- configuration --------------------------------------------------------------------------

def test_a_broken_source_url_override_is_one_named_line_and_the_source_falls_back(
        wh: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """GPUCOST_SOURCE_URL_<NAME> of `file:///etc/passwd`, `http://127.0.0.1:99999/` or an
    unclosed IPv6 bracket printed a 53-73-line traceback inside the refresh summary. Each is
    refused when read (InvalidSourceUrlError, one line; credentials masked), the source falls
    back to its last good data and the refresh publishes."""
    cases = {"lambda": ("file:///etc/passwd", "scheme 'file', only http and https"),
             "vast": ("http://127.0.0.1:99999/", "not a URL: Port out of range"),
             "runpod": ("http://user:s3cret@[::1/x", "not a URL: Invalid IPv6 URL")}
    for name, (url, _) in cases.items():
        monkeypatch.setenv(f"GPUCOST_SOURCE_URL_{name.upper()}", url)
    argv = ["refresh", "--no-prefect"]
    for name in cases:
        argv += ["--source", name]
    assert main(argv) == EXIT_OK
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err and "s3cret" not in captured.out
    lines = {line.split()[0]: line for line in captured.out.splitlines() if line.startswith("  ")}
    for name, (_, why) in cases.items():
        assert "InvalidSourceUrlError: GPUCOST_SOURCE_URL_" in lines[name], lines[name]
        assert lines[name].split()[1] in ("fallback", "failed"), lines[name]  # no data: failed
        assert why in lines[name], lines[name]
    assert "published" in captured.out
    from gpucost.catalog.http import url_problem

    for good in ("https://lambda.ai/pricing", "http://127.0.0.1:8080/x", "http://[::1]:80/"):
        assert url_problem(good) == ""
