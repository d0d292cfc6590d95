"""End to end through Prefect (one temporary server, ~10 s, for both runs):

1. offline, as `make refresh` on a machine with no network (every source pointed at a name
   that cannot resolve): the CLI prints no traceback, under 60 lines, ends with the verdict,
   exits 0 (it published), and the flow run ends Failed with the verdict as its message;
2. the refresh flow fetches live sources from a loopback server, one source failing, still
   publishes, and ends Completed with the verdict.
"""

import logging
from pathlib import Path

import duckdb
import pytest

# imported at collection (this imports prefect, which binds its console handler to the stream
# of that moment, not to this test's captured one)
from test_refresh_output import check_offline_output, point_every_source_at_nowhere

LAMBDA_PAGE = (Path(__file__).resolve().parents[1] / "fixtures" / "lambda"
               / "lambda_2026_tabs_min.html")


@pytest.fixture
def server_base(server):  # type: ignore[no-untyped-def]
    """The loopback server (tests/conftest.py): lambda answers, azure and skypilot fail."""
    body = LAMBDA_PAGE.read_bytes()
    server.route = lambda path: ((200, {"Content-Type": "text/html; charset=utf-8"}, body)
                                 if path.startswith("/lambda") else (500, {}, b""))
    return server.base


@pytest.mark.flow
def test_refresh_flow_offline_then_isolating_a_failing_source(server_base, tmp_path,
                                                              monkeypatch, capfd):
    from prefect.testing.utilities import prefect_test_harness

    from gpucost.catalog import sources
    from gpucost.flows import refresh as refresh_mod
    from gpucost.flows import steps

    server = server_base
    monkeypatch.setenv("GPUCOST_SOURCE_URL_LAMBDA", f"{server}/lambda/pricing")
    monkeypatch.setenv("GPUCOST_SOURCE_URL_AZURE", f"{server}/azure/api/retail/prices")
    monkeypatch.setenv("GPUCOST_SOURCE_URL_SKYPILOT", f"{server}/skypilot/catalogs/v8")
    # every other source answers 500 from the same local server (never the internet)

    for name in sorted(set(sources.names()) - {"azure", "lambda", "skypilot"}):
        monkeypatch.setenv(f"GPUCOST_SOURCE_URL_{name.upper()}", f"{server}/{name}")
    monkeypatch.setenv("GPUCOST_SOURCE_URL_CROSSCHECK_CLOUDGPUS", f"{server}/cloudgpus")

    from prefect.client.orchestration import get_client
    from prefect.client.schemas.sorting import FlowRunSort

    from gpucost.flows.cli import main as cli

    def last_flow_run(client):
        return client.read_flow_runs(sort=FlowRunSort.START_TIME_DESC, limit=1)[0]

    root_handlers = logging.getLogger().handlers[:]
    with prefect_test_harness(server_startup_timeout=90):
        with monkeypatch.context() as offline:
            point_every_source_at_nowhere(offline)
            offline.setenv("GPUCOST_DATA_DIR", str(tmp_path / "offline"))
            try:
                assert cli.main(["refresh"]) == 0  # published the curated data: exit 0
            finally:
                logging.getLogger().handlers[:] = root_handlers
            out, err = capfd.readouterr()
            verdict = check_offline_output(out, err, len(sources.names()))
        with get_client(sync_client=True) as client:
            offline_run = last_flow_run(client)
        assert offline_run.state.is_failed()  # an automation can trigger on it
        assert offline_run.state.message == verdict

        summary = refresh_mod.refresh(data_dir=str(tmp_path))
        with get_client(sync_client=True) as client:
            artifacts = client.read_artifacts()
            live_run = last_flow_run(client)
    assert live_run.state.is_completed()
    assert live_run.state.message == summary.verdict()
    # every source but an API whose key is not set (opt-in: Source.needs_key, shadeform)
    fetched = steps.names_to_fetch(None, None)
    assert summary.verdict().startswith(f"1 of {len(fetched)} live sources refreshed; ")
    summary_artifacts = [a for a in artifacts if a.key == "refresh-summary"]
    assert summary_artifacts and summary_artifacts[0].type == "table"
    assert "lambda" in str(summary_artifacts[0].data)

    status = {s.source: s.status for s in summary.sources}
    assert status["lambda"] == "live"
    assert status["azure"] == "failed" and status["skypilot"] == "failed"
    assert status["epoch"] == "failed"
    assert summary.published, summary.publish_error
    errors = {s.source: s.error_type for s in summary.sources}
    assert errors["azure"] == "HttpStatusError"

    con = duckdb.connect(str(tmp_path / "gpucost.duckdb"), read_only=True)
    n = con.execute("select count(*) from gpu_offers where source = 'lambda'").fetchone()[0]
    health = dict(con.execute("select source, last_error_type from source_health").fetchall())
    con.close()
    assert n > 0
    assert health.get("azure") == "HttpStatusError"


# --- the Prefect API failing around the flow (no server: the engine is simulated) ---------

def test_a_step_keeps_its_body_outcome_whatever_the_task_engine_raises(monkeypatch):
    import httpx

    from gpucost.flows import refresh as refresh_mod

    plain_calls = []

    def plain():  # type: ignore[no-untyped-def]
        plain_calls.append(1)
        return "plain"

    def engine_fails_after(body):  # type: ignore[no-untyped-def]
        def call():  # type: ignore[no-untyped-def]
            refresh_mod._in_step(body)
            raise httpx.ConnectError("refused")
        return call

    # the body ran, the engine failed reporting it: the body's result, never a second run
    assert refresh_mod._step("fetch", engine_fails_after(lambda: "fetched"), plain) == "fetched"
    # the body's own error stands
    with pytest.raises(ValueError, match="bug"):
        refresh_mod._step("fetch", engine_fails_after(
            lambda: (_ for _ in ()).throw(ValueError("bug"))), plain)
    assert plain_calls == []

    def engine_fails_before():  # type: ignore[no-untyped-def]
        raise httpx.ConnectError("refused")

    # the body never started: it runs once without Prefect
    assert refresh_mod._step("fetch", engine_fails_before, plain) == "plain"
    assert plain_calls == [1]


@pytest.fixture
def fake_engine(monkeypatch):  # type: ignore[no-untyped-def]
    """Flow.__call__ replaced: run the body (or not), then fail as a dead API does."""
    import httpx
    from prefect import Flow
    from prefect.states import Completed

    from gpucost.flows import prefect_api, prefect_server
    from gpucost.flows import refresh as refresh_mod

    gave_up = []
    monkeypatch.setattr(prefect_api, "give_up", lambda settings=None: gave_up.append(1))
    monkeypatch.setattr(prefect_server, "configured_api_url", lambda: None)
    monkeypatch.setattr(refresh_mod, "_refresh_body",
                        lambda *a: Completed(message="ok", data="the summary"))
    behaviour = {"run_body": True}

    def call(self, *args, return_state=False, wait_for=None, **kwargs):  # type: ignore[no-untyped-def]
        if behaviour["run_body"]:
            self.fn(*args, **kwargs)
        raise httpx.ConnectError("All connection attempts failed")

    monkeypatch.setattr(Flow, "__call__", call)
    behaviour["gave_up"] = gave_up
    return behaviour


def test_the_flow_result_survives_the_engine_failing_after_the_body(fake_engine, capfd):
    from gpucost.flows import refresh as refresh_mod

    state = refresh_mod.refresh(["lambda"], return_state=True)
    assert state.result() == "the summary"
    assert refresh_mod.refresh(["lambda"]) == "the summary"
    err = capfd.readouterr().err
    assert err.count("stopped answering during the run: the refresh went on without it") == 2
    assert fake_engine["gave_up"]


def test_the_flow_failing_before_its_body_asks_for_the_plain_path(fake_engine):
    from gpucost.flows import refresh as refresh_mod

    fake_engine["run_body"] = False
    state = refresh_mod.refresh(["lambda"], return_state=True)
    error = state.result(raise_on_failure=False)
    # flows/cli/refresh.py runs the plain path on a RuntimeError naming the Prefect API
    assert isinstance(error, RuntimeError) and "Prefect API" in str(error)
    assert "does not answer" in str(error)
    with pytest.raises(RuntimeError, match="Prefect API"):
        refresh_mod.refresh(["lambda"])
