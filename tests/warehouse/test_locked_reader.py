"""Issue 42: a BI tool's read-write connection (the default of many clients) holds DuckDB's
exclusive lock on the published file, in another process. Before: `gpucost sql` and every
other reader failed with DuckDB's lock error until the next publish, and that publish could
not read the previous build and rebuilt the history in full.

Now (warehouse/publish.py): the publish copies the published file's bytes and checks the copy
(its sha256 against published.json, objects and storage version from the copy), so a client
that changed nothing costs nothing; a client that changed the file still forces the full
rebuild. Readers read a private copy of the file when its bytes are those of its publish, and
say so on stderr; else one named line: who holds the lock, and how to fix it (read-only).

Every case runs a real second process holding `duckdb.connect(path)` read-write, over the
published file of a real load (the recorded Lambda catalog: tests/support/recorded_lambda.py,
17 offers of gpu_8x_h100_sxm5 at 31.92 / 8 = 3.99 USD per GPU-hour).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pytest
from recorded_lambda import H100_OFFERS, H100_QUERY, H100_USD_PER_GPU_HOUR, publish_recorded_lambda

from gpucost.flows.cli.main import main
from gpucost.flows.cli.output import EXIT_FAILED, EXIT_OK
from gpucost.flows.steps import build_and_publish
from gpucost.warehouse.publish import base_problem, lock_holder, serving_path

# A BI client: a read-write connection held until stdin closes. Before "ready" it runs the
# statements of argv[2] (a JSON list); after the first line on stdin, those of argv[3].
CLIENT = r"""
import json, sys, duckdb
con = duckdb.connect(sys.argv[1])
for sql in json.loads(sys.argv[2]):
    con.execute(sql)
print("ready", flush=True)
sys.stdin.readline()
for sql in json.loads(sys.argv[3]):
    con.execute(sql)
print("done", flush=True)
sys.stdin.readline()
"""


@contextmanager
def read_write_client(path: Path, before: list[str] = (),
                      after: list[str] = ()) -> Iterator[subprocess.Popen]:
    proc = subprocess.Popen([sys.executable, "-c", CLIENT, str(path), json.dumps(list(before)),
                             json.dumps(list(after))], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        yield proc
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)


def _go_on(proc: subprocess.Popen) -> None:
    """Let the client run its `after` statements (it keeps its connection)."""
    proc.stdin.write("go\n")
    proc.stdin.flush()
    assert proc.stdout.readline().strip() == "done"


@pytest.fixture(scope="module")
def published_once(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return publish_recorded_lambda(shared_data, tmp_path_factory.mktemp("lambda") / "data")


@pytest.fixture
def data(published_once: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the published load for one test, the data dir of the CLI; private copies
    are made in tmp_path/tmp (checked empty afterwards)."""
    copy = tmp_path / "data"
    shutil.copytree(published_once, copy)
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(copy))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    yield copy
    assert list((tmp_path / "tmp").iterdir()) == []  # no private copy left behind


def _h100(capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict], str]:
    code = main(["sql", H100_QUERY, "--format", "json"])
    out, err = capsys.readouterr()
    return code, json.loads(out) if code == EXIT_OK else [], err.strip()


EXPECTED = [{"n": H100_OFFERS, "lo": H100_USD_PER_GPU_HOUR, "hi": H100_USD_PER_GPU_HOUR}]


def test_a_client_that_changed_nothing_neither_blocks_readers_nor_forces_a_full_rebuild(
        data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the failure as it was: DuckDB itself refuses a second process, even read-only
    with read_write_client(serving_path(data)) as client:
        with pytest.raises(duckdb.IOException, match="Could not set lock") as refused:
            duckdb.connect(str(serving_path(data)), read_only=True)
        assert lock_holder(refused.value).startswith(f"PID {client.pid} (")

        code, rows, err = _h100(capsys)
        assert (code, rows) == (EXIT_OK, EXPECTED)
        assert len(err.splitlines()) == 1, err  # one note, stdout stays pure JSON
        assert err.startswith(f"note: the published warehouse {serving_path(data)} is locked "
                              f"by PID {client.pid} (")
        assert "reading a private copy of it" in err and "unchanged since its publish" in err
        assert "read-only" in err
        for argv in (["sources"], ["offers", "H100"], ["tables"]):
            assert main(argv) == EXIT_OK, argv
            assert "reading a private copy" in capsys.readouterr().err

        assert base_problem(data) == ""
        assert build_and_publish(data).history_mode == "incremental"
    code, rows, err = _h100(capsys)  # the new file: nobody holds it
    assert (code, rows, err) == (EXIT_OK, EXPECTED, "")


def test_a_client_that_changed_the_file_gets_a_named_error_and_a_full_rebuild(
        data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    planted = ["create table planted as select 42 as x", "checkpoint"]
    with read_write_client(serving_path(data), planted) as client:
        code, rows, err = _h100(capsys)
        assert code == EXIT_FAILED and rows == []
        assert len(err.splitlines()) == 1 and "Traceback" not in err, err
        assert err.startswith(f"error: the published warehouse {serving_path(data)} is locked "
                              f"by PID {client.pid} (")
        assert "its bytes are no longer those of its publish" in err
        assert "connect it read-only" in err and "next `gpucost refresh`" in err
        assert main(["sources"]) == EXIT_FAILED
        assert "is locked by PID" in capsys.readouterr().err

        assert base_problem(data).startswith(
            "full: the published file was written to after its publish by a read-write client "
            f"that still holds it: PID {client.pid} (")
        result = build_and_publish(data)
        assert result.history_mode == ("full: the published file holds objects its publish "
                                       "did not build (table main.planted not built by the "
                                       "models)")
    assert _h100(capsys) == (EXIT_OK, EXPECTED, "")
    assert main(["sql", "select count(*) from duckdb_tables() where table_name = 'planted'",
                 "--format", "csv"]) == EXIT_OK
    assert capsys.readouterr().out.split() == ["count_star()", "0"]


def test_a_client_kept_across_a_publish_leaves_a_foreign_log_readers_step_around(
        data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A client that keeps its read-write connection across a publish holds the replaced
    file (its old inode); when it writes afterwards, DuckDB creates its write-ahead log at
    the old name, beside the new published file, and every DuckDB client then refuses the
    new file ("... WAL checkpoint iteration does not match the database file"; after a full
    rebuild: "WAL does not match database file"). gpucost's readers read a private copy of
    the file's bytes (those of its publish, without the log); the next publish removes it."""
    with read_write_client(serving_path(data), after=[
            "create table written_after as select 1 as x"]) as client:
        assert build_and_publish(data).history_mode == "incremental"
        _go_on(client)
        wal = serving_path(data).with_name("gpucost.duckdb.wal")
        assert wal.exists()
        # the publish was incremental: the log names this database, an older checkpoint
        with pytest.raises(duckdb.IOException, match="WAL checkpoint iteration does not match"):
            duckdb.connect(str(serving_path(data)), read_only=True)
        code, rows, err = _h100(capsys)
        assert (code, rows) == (EXIT_OK, EXPECTED)
        assert "has beside it a write-ahead log of another file (gpucost.duckdb.wal" in err
        assert "reading a private copy of it" in err
        assert build_and_publish(data).history_mode == "incremental"
        assert not wal.exists()
    assert _h100(capsys) == (EXIT_OK, EXPECTED, "")


def test_lock_holder_reads_duckdbs_message() -> None:
    message = ('IO Error: Could not set lock on file "/d/gpucost.duckdb": Conflicting lock is '
               'held in /usr/bin/python3.11 (PID 8488) by user ann. See also '
               'https://duckdb.org/docs/current/connect/concurrency')
    assert lock_holder(Exception(message)) == "PID 8488 (/usr/bin/python3.11, user ann)"
    assert lock_holder(Exception(message.replace(" by user ann", ""))) == \
        "PID 8488 (/usr/bin/python3.11)"
    assert lock_holder(Exception('Could not set lock on file "x": Resource busy')) == \
        "another process"
    assert lock_holder(Exception("IO Error: No such file")) is None
