"""What we publish stays ours (issue 27, items 1 and 2): tables, views and macros a
read-write client plants in the published file never reach the next build, and a planted view
that reads a local file is never executed by refresh or `sources`."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from gpucost.flows.cli.main import main
from gpucost.warehouse.publish import MANIFEST_NAME, base_problem, serving_path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
LAMBDA_PAGE = (FIXTURES / "lambda" / "lambda_2026_tabs_min.html").read_bytes()
SKYPILOT = FIXTURES / "skypilot" / "lambda_vms_tiny.csv"
SECRET = "SECRET-TOKEN-4242"


def _serve_lambda(server, monkeypatch, data: Path) -> None:
    server.route = lambda path: (200, {"Content-Type": "text/html"}, LAMBDA_PAGE)
    monkeypatch.setenv("GPUCOST_SOURCE_URL_LAMBDA", f"{server.base}/lambda/pricing")
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(data))


def _refresh() -> int:
    return main(["refresh", "--no-prefect", "--source", "lambda"])


def _objects(data: Path) -> set[tuple[str, str]]:
    with duckdb.connect(str(serving_path(data)), read_only=True,
                        config={"enable_external_access": False}) as con:
        return set(con.execute(
            "select schema_name, table_name from duckdb_tables() union all "
            "select schema_name, view_name from duckdb_views() where not internal union all "
            "select schema_name, function_name from duckdb_functions() "
            "where not internal and function_type like '%macro'").fetchall())


def _row_counts(data: Path) -> dict[str, int]:
    with duckdb.connect(str(serving_path(data)), read_only=True,
                        config={"enable_external_access": False}) as con:
        names = [r[0] for r in con.execute(
            "select table_name from duckdb_tables() where schema_name = 'main'").fetchall()]
        return {n: con.execute(f'select count(*) from "{n}"').fetchone()[0] for n in names}


def _plant(data: Path, secret: Path) -> None:
    with duckdb.connect(str(serving_path(data))) as con:  # a read-write client
        con.execute("create table planted_table as select 42 as x")
        # two arguments only: every later build that calls round(x) fails to bind
        con.execute("create macro round(x, y) as x + 1000")
        con.execute("drop table source_health")
        con.execute("create view source_health as select content as source, 1 as "
                    "rows_in_force, 1.0 as data_age_days, 'x' as data_origin from "
                    f"read_text('{secret}')")
        con.execute(f"create view planted_view as select * from read_text('{secret}')")


def test_planted_table_view_and_macro_never_reach_the_next_build(
        server, tmp_path, monkeypatch, capfd):
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    clean, planted = tmp_path / "clean", tmp_path / "planted"
    for data in (clean, planted):
        _serve_lambda(server, monkeypatch, data)
        main(["ingest", "skypilot", str(SKYPILOT)])
        assert _refresh() == 0
    _serve_lambda(server, monkeypatch, clean)
    assert _refresh() == 0
    expected = _row_counts(clean)
    assert expected["gpu_prices"] > 0 and expected["source_health"] > 0

    _plant(planted, secret)
    capfd.readouterr()
    _serve_lambda(server, monkeypatch, planted)
    # `sources` reads source_health with file access off: one line, no secret, no traceback
    assert main(["sources"]) == 1
    out, err = capfd.readouterr()
    assert SECRET not in out + err and "Traceback" not in out + err
    assert len(err.strip().splitlines()) == 1 and "gpucost refresh" in err

    assert _refresh() == 0
    out, err = capfd.readouterr()
    assert SECRET not in out + err
    assert "rebuilt in full: the published file holds objects its publish did not build" in out
    assert "macro main.round" in out and "planted_table" in out
    assert _row_counts(planted) == expected  # the same row counts as a clean build
    objects = _objects(planted)
    assert not {("main", "planted_table"), ("main", "planted_view"), ("main", "round")} & objects
    main(["sql", "select round(1.26, 1) as r", "--format", "json"])
    assert json.loads(capfd.readouterr().out) == [{"r": 1.3}]
    # the next refresh starts from the clean file again
    assert base_problem(planted) == ""


def test_a_write_into_a_built_table_is_rebuilt_away(server, tmp_path, monkeypatch, capfd):
    """Same objects, changed rows: the file's size or time changed since its publish."""
    data = tmp_path / "data"
    _serve_lambda(server, monkeypatch, data)
    assert _refresh() == 0
    with duckdb.connect(str(serving_path(data))) as con:
        before = con.execute("select count(*) from gpu_offers").fetchone()[0]
        con.execute("delete from gpu_offers")
    assert base_problem(data).startswith("full: the published file was written to")
    capfd.readouterr()
    assert _refresh() == 0
    assert "rebuilt in full: the published file was written to" in capfd.readouterr().out
    assert _row_counts(data)["gpu_offers"] == before


def test_no_record_of_the_publish_means_a_full_rebuild(server, tmp_path, monkeypatch):
    data = tmp_path / "data"
    _serve_lambda(server, monkeypatch, data)
    assert _refresh() == 0
    assert base_problem(data) == ""
    (data / MANIFEST_NAME).unlink()
    assert base_problem(data) == "full: the published file has no record of what its publish built"


def _lambda_csv(path: Path, n: int) -> Path:
    lines = ["InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,"
             "GpuInfo,SpotPrice"]
    lines += [f"gpu_8x_h100_{i},H100,8,208,1800,{20 + i / 100:.2f},region-{i},," for i in range(n)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_payload_over_the_row_cap_is_refused_by_name(tmp_path, monkeypatch, capfd):
    """Issue 27, item 3: a payload with more rows than GPUCOST_PAYLOAD_MAX_ROWS is refused
    whole and by name (a CSV before it is parsed), the last good data stays in force."""
    data = tmp_path / "data"
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(data))
    monkeypatch.setenv("GPUCOST_PAYLOAD_MAX_ROWS", "100")
    good = _lambda_csv(tmp_path / "lambda_vms_2026-11-20.csv", 100)  # at the cap: loads
    assert main(["ingest", "skypilot", str(good)]) == 0
    big = _lambda_csv(tmp_path / "lambda_vms_2026-11-21.csv", 101)
    capfd.readouterr()
    assert main(["ingest", "skypilot", str(big)]) == 3
    out = capfd.readouterr().out
    assert "TooManyRowsError" in out and "101 lines, above the payload row cap of 100" in out
    with duckdb.connect(str(data / "raw.duckdb"), read_only=True) as con:
        assert con.execute("select status, error_type from fetches order by fetch_id"
                           ).fetchall() == [("replayed", None), ("failed", "TooManyRowsError")]
        assert con.execute("select count(*) from price_observations").fetchone()[0] == 100
    assert _row_counts(data)["gpu_offers"] >= 100


def test_a_parsed_payload_over_the_row_cap_is_refused_by_name(tmp_path, monkeypatch):
    """Formats other than CSV are counted after parsing (rows and rejects): the same named
    refusal. The Azure page of the fixtures parses to 2 prices and 3 rejects."""
    from gpucost.flows.ingest import ingest_files

    page = FIXTURES / "azure" / "eastus2_gpu_page_6items.json"
    monkeypatch.setenv("GPUCOST_PAYLOAD_MAX_ROWS", "4")
    [refused], _ = ingest_files("azure", [page], data_dir=tmp_path / "a", rebuild=False)
    assert refused.status == "failed" and refused.error_type == "TooManyRowsError"
    assert "5 rows, above the payload row cap of 4" in refused.error
    monkeypatch.setenv("GPUCOST_PAYLOAD_MAX_ROWS", "5")
    [loaded], _ = ingest_files("azure", [page], data_dir=tmp_path / "b", rebuild=False)
    assert loaded.status == "replayed" and loaded.rows_loaded == 2
