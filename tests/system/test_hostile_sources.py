"""Hostile input that once stopped every source or leaked a secret (issue "Hostile input"):
each is now that source's named failure alone, and credentials never leave the process."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from gpucost.flows.cli.main import main
from gpucost.flows.cli.output import EXIT_USAGE
from gpucost.flows.ingest import ingest_files
from gpucost.flows.steps import refresh_plain

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
LAMBDA_PAGE = (FIXTURES / "lambda" / "lambda_2026_tabs_min.html").read_bytes()
NESTED = b"[" * 100_000 + b"]" * 100_000  # RecursionError in a JSON parser


def _fetch_rows(data: Path) -> list[tuple]:
    with duckdb.connect(str(data / "raw.duckdb"), read_only=True) as con:
        return con.execute("select source, status, error_type, error, payload_path "
                           "from fetches order by fetch_id").fetchall()


@pytest.mark.parametrize("source, name, body", [
    ("vast", "bundles.json", NESTED),
    ("vast", "bundles.json",
     json.dumps({"offers": [{"gpu_name": "RTX 4090", "num_gpus": 1,
                             "dph_base": int("9" * 400)}]}).encode()),
    ("gpuhunt", "nebius_catalog.zip", b"PK\x03\x04" + b"\x00" * 200),
    ("azure", "page.json", b'{"Items": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"),
])
def test_a_hostile_payload_is_a_named_failure_of_its_file(tmp_path, source, name, body):
    path = tmp_path / name
    path.write_bytes(body)
    good = FIXTURES / "lambda" / "lambda_2026_tabs_min.html"
    outcomes, published = ingest_files(source, [path], data_dir=tmp_path / "wh")
    ingest_files("lambda", [good], data_dir=tmp_path / "wh")
    [outcome] = outcomes
    assert outcome.status == "failed"
    assert outcome.error_type in ("ParseError", "UnexpectedPayloadError", "EmptyPayloadError")
    assert "\n" not in outcome.error and len(outcome.error) < 400
    rows = _fetch_rows(tmp_path / "wh")
    assert rows[0][:2] == (source, "failed") and rows[0][4]  # the payload is kept verbatim
    assert rows[-1][:2] == ("lambda", "replayed")  # the next source still loads
    assert published is not None  # and the warehouse still publishes


def test_a_hostile_live_source_fails_alone(server, tmp_path, monkeypatch):
    server.route = lambda path: ((200, {"Content-Type": "text/html"}, LAMBDA_PAGE)
                                 if path.startswith("/lambda") else
                                 (200, {"Content-Type": "application/json"}, NESTED))
    monkeypatch.setenv("GPUCOST_SOURCE_URL_LAMBDA", f"{server.base}/lambda/pricing")
    monkeypatch.setenv("GPUCOST_SOURCE_URL_VAST", f"{server.base}/vast/bundles/")
    summary = refresh_plain(["lambda", "vast"], data_dir=tmp_path)
    status = {s.source: (s.status, s.error_type) for s in summary.sources}
    assert status["lambda"] == ("live", None)
    assert status["vast"][0] == "failed" and status["vast"][1] == "UnexpectedPayloadError"
    assert summary.published


def test_credentials_in_a_source_url_never_leave_the_process(server, tmp_path, monkeypatch,
                                                             capfd):
    """A mirror URL with user:password: used for the request, masked everywhere else."""
    server.route = lambda path: ((200, {"Content-Type": "text/html"}, LAMBDA_PAGE)
                                 if path.startswith("/lambda") else (500, {}, b"boom"))
    host = server.base.removeprefix("http://")
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("GPUCOST_SOURCE_URL_LAMBDA", f"http://mirror:s3cretpw@{host}/lambda/pricing")
    monkeypatch.setenv("GPUCOST_SOURCE_URL_VAST", f"http://mirror:s3cretpw@{host}/vast/bundles/")
    main(["refresh", "--no-prefect", "--source", "lambda", "--source", "vast", "--verbose"])
    main(["sources"])
    main(["report", "-o", str(tmp_path / "report.html")])
    out, err = capfd.readouterr()
    assert "lambda" in out and "vast" in out
    assert "s3cretpw" not in out + err
    assert "Authorization" not in out + err
    for path in tmp_path.rglob("*"):
        if path.is_file() and path.suffix not in (".duckdb", ".wal", ".parquet"):
            assert b"s3cretpw" not in path.read_bytes(), path
    for db in ("raw.duckdb", "gpucost.duckdb"):
        with duckdb.connect(str(tmp_path / db), read_only=True) as con:
            tables = con.execute("select table_schema, table_name from information_schema.tables "
                                 "where table_type = 'BASE TABLE'").fetchall()
            for schema, table in tables:
                hits = con.execute(
                    f'select count(*) from "{schema}"."{table}" as t '
                    "where cast(columns(*) as varchar) like '%s3cretpw%'").fetchone()
                assert hits == (0,), (db, table)
    assert any(r[0] == "lambda" and r[1] == "ok" for r in _fetch_rows(tmp_path))  # it was used
    seen = [r.headers.get("Authorization", "") for r in server.requests]
    assert any(h.startswith("Basic ") for h in seen)


def test_a_directory_given_to_ingest_says_so(tmp_path, capsys):
    assert main(["ingest", "lambda", str(tmp_path)]) == EXIT_USAGE
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {tmp_path}: a directory") and "\n" not in err


def test_a_gzip_bomb_robots_txt_keeps_a_refresh_under_1_gb():
    """A 4 MB gzip-bomb robots.txt (4 GiB of zeros) took 8.6 GB: now it counts as absent
    (read streamed, capped after decoding) and the whole refresh, in its own process, peaks
    far below 1 GB (measured with getrusage)."""
    from hostile_cases import PEAK_RSS_LIMIT_MB, measure_bomb_refresh

    measured = measure_bomb_refresh()
    assert measured["status"] == "live" and measured["published"]
    assert measured["bomb_bytes"] < 5_000_000
    assert measured["peak_rss_mb"] < PEAK_RSS_LIMIT_MB, measured
