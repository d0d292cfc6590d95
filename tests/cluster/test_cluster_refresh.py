"""A refresh through the work pools: 12 sources served from their recorded live fixtures on a
loopback HTTP server, 3 batches on two fetcher workers, one publisher (issue 28).

Real servers throughout (tests/cluster/conftest.py starts SeaweedFS, PostgreSQL, a Prefect
server on PostgreSQL and the workers): nothing here is mocked.
"""

from __future__ import annotations

import fault_matrix
import pytest

from gpucost.cluster import flows

TWELVE = ["coreweave", "crusoe", "datacrunch", "digitalocean", "fluidstack", "hyperstack",
          "lambda", "nebius", "paperspace", "runpod", "vast", "voltagepark"]
FAILING = "vast"


def _env(server: fault_matrix.MatrixServer) -> dict[str, str]:
    """What the flow runs need to fetch from the loopback server quickly: the URL overrides,
    short deadlines, and no proxy for loopback."""
    env = dict(server.env)
    env.update({"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
                "GPUCOST_FETCH_DEADLINE_S": "30"})
    return env


def _states(run_id: str) -> list[str]:
    from prefect import get_client

    with get_client(sync_client=True) as client:
        return [s.type.value for s in client.read_flow_run_states(run_id)]


OFFERS = ("select source, provider, sku, region, pricing_model, gpu_count, price_per_hour "
          "from gpu_offers order by all")


@pytest.fixture(scope="module")
def refreshed(cluster, tmp_path_factory):  # type: ignore[no-untyped-def]
    """One cluster refresh of the twelve sources, FAILING answering HTTP 500; the same
    refresh again (nothing changed); and the embedded refresh of the same server for
    comparison: (first run, second run, the embedded path's offers)."""
    from gpucost.flows.steps import refresh_plain
    from gpucost.warehouse.publish import connect_readonly

    flows.deploy(cluster)
    server = fault_matrix.MatrixServer(TWELVE)
    server.assignment = {FAILING: "http_500"}
    with server.serving():
        run = flows.run_cluster_refresh(TWELVE, batches=3, env=_env(server), timeout_s=240,
                                        settings=cluster)
        second = flows.run_cluster_refresh(TWELVE, batches=3, env=_env(server),
                                           timeout_s=240, settings=cluster)
        local = tmp_path_factory.mktemp("embedded")
        with pytest.MonkeyPatch.context() as mp:
            for k, v in _env(server).items():
                mp.setenv(k, v)
            refresh_plain(TWELVE, data_dir=local)
    con = connect_readonly(local)
    try:
        embedded = con.execute(OFFERS).fetchall()
    finally:
        con.close()
    return run, second, embedded


def _markers(settings, runs):  # type: ignore[no-untyped-def]
    from gpucost.cluster.shared_raw import SharedRaw

    ids = {r["id"] for r in runs}
    return [m for m in SharedRaw(settings, writer=False).markers() if m["run_id"] in ids]


def test_twelve_sources_three_batches_two_workers(cluster, refreshed) -> None:  # type: ignore[no-untyped-def]
    run, _, _ = refreshed
    assert [r["state"] for r in run.fetch_runs] == ["COMPLETED"] * 3
    assert run.verdict() == "11 of 12 sources refreshed; 1 failed (HttpStatusError); published"
    assert sorted(s for r in run.fetch_runs for s in r["sources"]) == sorted(TWELVE)
    markers = _markers(cluster, run.fetch_runs)
    # one marker per source, each with its own id
    assert sorted(m["source"] for m in markers) == sorted(TWELVE)
    assert len({m["fetch_id"] for m in markers}) == 12
    # the batches ran on both workers, each run on exactly one, claimed once
    by_run: dict[str, set[str]] = {}
    for m in markers:
        by_run.setdefault(m["run_id"], set()).add(m["worker"])
    assert all(len(w) == 1 for w in by_run.values()), by_run
    assert set().union(*by_run.values()) == {"fetcher-1", "fetcher-2"}, by_run
    for r in run.fetch_runs:
        assert _states(r["id"]).count("RUNNING") == 1
    # the source answering 500 failed alone, with its named error; the others loaded rows
    failed = {m["source"]: m for m in markers if m["status"] == "failed"}
    assert set(failed) == {FAILING}
    assert failed[FAILING]["error_type"] == "HttpStatusError"
    assert all(m["rows"] > 0 for m in markers if m["status"] == "ok")
    # each marker names its verbatim payload object, at its content-addressed key
    from gpucost.cluster.objects import ObjectStore

    store = ObjectStore(cluster, writer=False)
    for m in markers:
        if m["status"] == "ok":
            key = m["payload_keys"]
            assert key.startswith(f"raw/{m['source']}/") and m["sha256"] in key
            assert store.size(cluster.raw_bucket, key) == m["payload_bytes"]


def test_the_publish_happens_and_readers_see_it(cluster, refreshed) -> None:  # type: ignore[no-untyped-def]
    """The snapshot readers get holds exactly the offers the embedded refresh of the same
    payloads publishes; the failing source is named in source_health."""
    from gpucost.cluster.snapshot import open_current, read_current

    run, _, embedded = refreshed
    assert run.publish_run["state"] == "COMPLETED"
    current = read_current(cluster)
    con = open_current(cluster, None)
    try:
        offers = con.execute(OFFERS).fetchall()
        health = {r[0]: r[1:] for r in con.execute(
            "select source, last_status, last_error_type from source_health").fetchall()}
    finally:
        con.close()
    assert current["key"].startswith("warehouse/")
    assert offers == embedded
    assert {r[0] for r in offers} == (set(TWELVE) - {FAILING}) | {"reference"}
    assert health[FAILING] == ("failed", "HttpStatusError")
    assert health["lambda"][0] == "ok"


def test_fetching_the_same_bytes_again_adds_no_rows(cluster, refreshed) -> None:  # type: ignore[no-untyped-def]
    _, second, _ = refreshed
    assert second.verdict() == ("11 of 12 sources refreshed (11 unchanged); 1 failed "
                                "(HttpStatusError); published")
    markers = _markers(cluster, second.fetch_runs)
    # only the failing source writes a marker again: every other payload is unchanged
    assert {m["source"] for m in markers} == {FAILING}, markers
    assert second.publish_run["state"] == "COMPLETED"



def test_two_publish_runs_triggered_together_never_overlap(cluster, refreshed) -> None:  # type: ignore[no-untyped-def]
    """The publisher pool's concurrency limit is 1 (and the deployment's): the second run
    waits for the first to end; both complete."""
    from prefect import get_client
    from prefect.deployments import run_deployment

    flows.deploy(cluster)
    runs = [run_deployment(flows.PUBLISH_DEPLOYMENT, timeout=0, as_subflow=False)
            for _ in range(2)]
    finished = flows._wait([r.id for r in runs], 240)
    spans = []
    with get_client(sync_client=True) as client:
        for r in runs:
            assert finished[str(r.id)].state.type.value == "COMPLETED"
            states = client.read_flow_run_states(r.id)
            start = min(s.timestamp for s in states if s.type.value == "RUNNING")
            end = max(s.timestamp for s in states if s.is_final())
            spans.append((start, end))
    (a_start, a_end), (b_start, b_end) = sorted(spans)
    assert a_end <= b_start, spans
