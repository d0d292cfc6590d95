"""Security: API keys never leak; `gpucost sql` is read-only without file access; scraped
pages honour robots.txt and a per-host rate; no eval, pickle or shell anywhere."""

from __future__ import annotations

import ast
import json
import logging
from pathlib import Path

import duckdb
import fault_matrix as fm
import pytest

import gpucost.catalog.http
from gpucost.catalog import secrets, sources
from gpucost.catalog.records import RobotsDisallowedError
from gpucost.flows.cli import main as cli
from gpucost.flows.cli import output
from gpucost.flows.steps import refresh_plain

ROOT = Path(__file__).resolve().parents[2]
KEY = "gpk-live-7f3a9c2e51d84b06"


def _text_cells(db: Path) -> list[str]:
    """Every text value of every table of a DuckDB file."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        cells: list[str] = []
        tables = con.execute(
            "select database_name, schema_name, table_name, column_name from duckdb_columns() "
            "where data_type = 'VARCHAR' and not internal"
        ).fetchall()
        for db_name, schema, table, column in tables:
            cells += [r[0] for r in con.execute(
                f'select "{column}" from "{db_name}"."{schema}"."{table}" '
                f'where "{column}" is not null').fetchall()]
        return cells
    finally:
        con.close()


def test_api_key_never_reaches_logs_artifacts_warehouse_or_files(tmp_path, monkeypatch, caplog):
    monkeypatch.setitem(sources._MODULES, "keyed", "keyed_source")
    monkeypatch.setenv("GPUCOST_KEYED_API_KEY", KEY)
    replies = iter([
        (401, {}, b"unauthorized"),  # an error whose URL carries the key
        (200, {"Content-Type": "application/json"}, json.dumps({"offers": [
            {"sku": "gpu_1x_h100", "gpu": "H100 SXM", "price": 2.49}]}).encode()),
    ])
    seen: list[str] = []

    def route(path: str):
        seen.append(path)
        return next(replies)

    caplog.set_level(logging.DEBUG)
    with fm.fault_server(route) as base:
        monkeypatch.setenv("GPUCOST_SOURCE_URL_KEYED", f"{base}/keyed")
        first = refresh_plain(["keyed"], data_dir=tmp_path)
        second = refresh_plain(["keyed"], data_dir=tmp_path)

    assert any(KEY in p for p in seen), "the key must really have been sent"
    assert first.sources[0].error_type == "HttpStatusError"
    assert second.sources[0].status == "live" and second.published
    assert KEY not in caplog.text
    assert KEY not in json.dumps([first.table(), second.table()])  # the Prefect artifact rows
    for db in (tmp_path / "raw.duckdb", tmp_path / "gpucost.duckdb"):
        cells = _text_cells(db)
        assert cells and not [c for c in cells if KEY in c], db.name
    for path in tmp_path.rglob("*"):
        if path.is_file() and path.suffix not in (".duckdb", ".wal"):
            assert KEY.encode() not in path.read_bytes(), path  # payloads, exports, docs
    assert secrets.redact(f"x?api_key={KEY}") == "x?api_key=***"


@pytest.mark.parametrize("query", [
    "copy (select 1) to '{out}'",
    "attach '{tmp}/other.duckdb' as other",
    "select * from read_csv('/etc/passwd')",
    "create table evil as select 1",
    "install httpfs",
])
def test_sql_command_is_read_only_without_file_access(query, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(tmp_path))
    fm.make_baseline(tmp_path)
    out = tmp_path / "leak.csv"
    code = cli.main(["sql", query.format(out=out, tmp=tmp_path)])
    assert code == output.EXIT_FAILED
    assert "error:" in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "other.duckdb").exists()


def test_robots_txt_disallow_is_honoured(monkeypatch):
    requested: list[str] = []

    def route(path: str):
        requested.append(path)
        if path == "/robots.txt":
            return 200, {}, b"User-agent: *\nDisallow: /pricing\n"
        return 200, {"Content-Type": "text/html"}, b"<html></html>"

    with fm.fault_server(route) as base:
        monkeypatch.setenv("GPUCOST_SOURCE_URL_LAMBDA", f"{base}/pricing")
        with pytest.raises(RobotsDisallowedError):
            sources.get("lambda").fetch()
    assert requested == ["/robots.txt"]


def test_scraped_hosts_are_spaced_apart(monkeypatch):
    monkeypatch.setattr(gpucost.catalog.http, "HTML_MIN_INTERVAL_S", 2.0)
    slept: list[float] = []
    for url in ("http://a.example/1", "http://a.example/2", "http://b.example/1",
                "http://a.example/3"):
        gpucost.catalog.http._wait_for_host(url, gpucost.catalog.http.HTML_MIN_INTERVAL_S,
                                            slept.append)
    # a.example: immediately, then 2 s, then 4 s after the first; b.example: immediately
    assert [round(s) for s in slept] == [2, 4]


_FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__"}
_FORBIDDEN_MODULES = {"pickle", "marshal", "shelve", "dill", "cloudpickle"}


def test_no_eval_pickle_or_shell_in_the_code():
    offenders = []
    for path in sorted(ROOT.glob("[cfmw]*/**/*.py")):
        if ".venv" in path.parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                if any(n.split(".")[0] in _FORBIDDEN_MODULES for n in names):
                    offenders.append(f"{where} imports a pickle-like module")
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                if name in _FORBIDDEN_CALLS and isinstance(func, ast.Name):  # the builtins
                    offenders.append(f"{where} calls {name}()")
                if name in {"system", "popen"} and isinstance(func, ast.Attribute):
                    offenders.append(f"{where} calls os.{name}()")
                for kw in node.keywords:
                    if kw.arg == "shell" and not (isinstance(kw.value, ast.Constant)
                                                  and kw.value.value is False):
                        offenders.append(f"{where} runs a shell")
    assert not offenders, offenders
