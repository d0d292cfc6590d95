"""Running it as a service: schedules (`gpucost serve`, prefect.yaml), refreshing one kind of
source, fetch progress on a terminal, `gpucost sources`, exit codes."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
import yaml

from gpucost.catalog import sources
from gpucost.flows import progress, serve, steps
from gpucost.flows.cli import main as cli

REPO = Path(__file__).resolve().parents[2]
LAMBDA_PAGE = (Path(__file__).resolve().parents[1] / "fixtures" / "lambda"
               / "lambda_2026_tabs_min.html")


@pytest.fixture
def no_cron_env(monkeypatch):
    for name in ("GPUCOST_PRICES_CRON", "GPUCOST_SPECS_CRON", "GPUCOST_THROUGHPUT_CRON",
                 "GPUCOST_SCHEDULE_TIMEZONE"):
        monkeypatch.delenv(name, raising=False)


def test_serve_dry_run_shows_deployments_with_crons(no_cron_env, capsys):
    assert cli.main(["serve", "--dry-run"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "refresh/prices: cron '0 */6 * * *' (UTC), parameters {'kind': 'prices'}, "
        "entrypoint flows/refresh.py:refresh",
        "refresh/specs: cron '30 3 * * *' (UTC), parameters {'kind': 'specs'}, "
        "entrypoint flows/refresh.py:refresh",
        "refresh/throughput: cron '45 4 * * 1' (UTC), parameters {'kind': 'throughput'}, "
        "entrypoint flows/refresh.py:refresh",
    ]


def test_serve_crons_are_configurable(no_cron_env, monkeypatch, capsys):
    monkeypatch.setenv("GPUCOST_PRICES_CRON", "15 */4 * * *")
    assert cli.main(["serve", "--dry-run", "--specs-cron", "0 5 * * 1",
                     "--timezone", "Europe/Berlin"]) == 0
    out = capsys.readouterr().out
    assert "refresh/prices: cron '15 */4 * * *' (Europe/Berlin)" in out
    assert "refresh/specs: cron '0 5 * * 1' (Europe/Berlin)" in out
    assert cli.main(["serve", "--dry-run", "--prices-cron", "every six hours"]) == 2
    assert "Invalid cron" in capsys.readouterr().err


def test_serve_needs_a_server(no_cron_env, monkeypatch, capsys):
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    assert cli.main(["serve"]) == 1
    assert "prefect server start" in capsys.readouterr().err


def test_prefect_yaml_matches_serve(no_cron_env):
    from prefect.flows import load_flow_from_entrypoint

    spec = yaml.safe_load((REPO / "prefect.yaml").read_text())
    plan = {s.name: s for s in serve.schedules()}
    deployments = {d["name"]: d for d in spec["deployments"]}
    assert set(deployments) == set(plan)
    for name, d in deployments.items():
        [schedule] = d["schedules"]
        assert (schedule["cron"], schedule["timezone"]) == (plan[name].cron,
                                                            plan[name].timezone)
        assert d["parameters"] == {"kind": plan[name].kind}
        flow = load_flow_from_entrypoint(str(REPO / d["entrypoint"]))
        assert flow.name == "refresh" and "kind" in flow.parameters.properties


def test_sources_by_kind():
    everything = sources.names()
    prices, specs = steps.source_names("prices"), steps.source_names("specs")
    throughput = steps.source_names("throughput")
    assert throughput == ["inferencex", "mlperf_results", "mlperf_training"]
    assert sorted(prices + specs + throughput) == everything
    for name in prices:
        assert sources.get(name).kind == "prices"
    for name in specs:
        assert sources.get(name).kind == "specs"
    with pytest.raises(ValueError, match="unknown source kind"):
        steps.source_names("gpus")


def _lambda_answers_others_fail(path: str):  # type: ignore[no-untyped-def]
    if path.startswith("/lambda"):
        return 200, {"Content-Type": "text/html; charset=utf-8"}, LAMBDA_PAGE.read_bytes()
    return 500, {}, b"upstream broke"  # azure, skypilot and the spec sources


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def live(tmp_path, monkeypatch, server):
    """Every source pointed at a local server: lambda answers, azure and skypilot fail."""
    server.route = _lambda_answers_others_fail
    base = server.base
    monkeypatch.setenv("GPUCOST_SOURCE_URL_LAMBDA", f"{base}/lambda/pricing")
    monkeypatch.setenv("GPUCOST_SOURCE_URL_AZURE", f"{base}/azure/api/retail/prices")
    monkeypatch.setenv("GPUCOST_SOURCE_URL_SKYPILOT", f"{base}/skypilot/catalogs/v8")
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(tmp_path))
    for name in sources.names():
        if sources.get(name).kind == "specs":  # spec sources answer 500 here
            monkeypatch.setenv(f"GPUCOST_SOURCE_URL_{name.upper()}", f"{base}/spec/{name}")
    return tmp_path


def test_refresh_strict_progress_and_sources(live, monkeypatch, capsys):
    tty = _Tty()
    real = progress.for_terminal
    monkeypatch.setattr(progress, "for_terminal", lambda stream=None: real(tty))
    assert cli.main(["refresh", "--no-prefect", "--strict", "--kind", "prices"]) == 3
    out = capsys.readouterr().out
    assert re.search(r"^\s+lambda\s+live\b", out, re.M) and "published" in out
    shown = tty.getvalue()  # one line per source as it finished, on the (fake) terminal
    assert "lambda" in shown and "ok" in shown and "1 payload" in shown
    assert "azure" in shown and "failed" in shown and "HttpStatusError" in shown
    assert (live / "exports" / "schema.json").is_file()

    # only the spec sources (failing here): the price sources are not fetched, still published
    assert cli.main(["refresh", "--no-prefect", "--strict", "--kind", "specs"]) == 3
    out = capsys.readouterr().out
    spec_names = [n for n in sources.names() if sources.get(n).kind == "specs"]
    assert spec_names and all(f"  {n} " in out for n in spec_names)
    assert "lambda         live" not in out and "published" in out

    assert cli.main(["sources"]) == 0
    table = capsys.readouterr().out
    assert table.splitlines()[0].split()[:3] == ["source", "kind", "health"]
    assert "HttpStatusError: HTTP 500" in table
    assert cli.main(["sources", "--format", "json"]) == 0
    rows = {r["source"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["lambda"]["health"] == "ok" and rows["lambda"]["rows_in_force"] > 0
    assert rows["azure"]["health"] == "failing"
    assert rows["azure"]["last_error_type"] == "HttpStatusError"
    assert rows["reference"]["health"] == "curated"
    assert set(sources.names()) <= set(rows)
    assert cli.main(["sources", "--strict"]) == 3
    capsys.readouterr()
    # csv: the same rows and columns as json (the health label from SQL)
    assert cli.main(["sources", "--format", "csv"]) == 0
    header, *body = csv.reader(io.StringIO(capsys.readouterr().out))
    assert header == list(rows["lambda"])
    assert header[:2] == ["source", "kind"] and header[-1] == "health"
    assert {r[0]: r[-1] for r in body} == {name: r["health"] for name, r in rows.items()}
    # a maximum age shorter than the age of lambda's fresh data: stale (the freshness sense)
    assert cli.main(["sources", "--format", "json", "--max-age-days", "1e-9", "--strict"]) == 3
    out = capsys.readouterr()
    short = {r["source"]: r for r in json.loads(out.out)}
    assert short["lambda"]["health"] == "stale" and short["azure"]["health"] == "failing"
    assert "lambda: stale (data older than the maximum age)" in out.err


def test_sources_without_a_warehouse(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(tmp_path))
    assert cli.main(["sources"]) == 1
    assert "run `gpucost refresh` first" in capsys.readouterr().err


def test_sources_of_a_warehouse_built_before_health_was_sql(service_warehouse, tmp_path,
                                                              monkeypatch, capsys):
    """A warehouse published by an older gpucost (source_health without health, no macro):
    one line naming the fix, exit 1, no traceback."""
    import shutil

    import duckdb

    data = tmp_path / "old"
    shutil.copytree(service_warehouse, data)
    con = duckdb.connect(str(data / "gpucost.duckdb"))
    con.execute("alter table source_health drop column health")
    con.execute("drop macro source_health_label")
    con.close()
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(data))
    assert cli.main(["sources"]) == 1
    err = capsys.readouterr().err
    assert "predates this version" in err and "`gpucost refresh` rebuilds it" in err
    assert len(err.splitlines()) == 1


def test_progress_only_on_a_terminal():
    assert progress.for_terminal(io.StringIO()) is None
    assert isinstance(progress.for_terminal(_Tty()), progress.RichFetchProgress)


@pytest.mark.parametrize("command", ["refresh", "ingest", "sql", "sources", "report", "serve",
                                     "docs"])
def test_every_help_states_the_exit_codes(command, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main([command, "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    assert "Exit codes" in text and "3  data was published but a source failed" in text
