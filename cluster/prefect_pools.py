"""The Prefect server and its work pools for the cluster (cluster/servers.py).

A Prefect server on the cluster's PostgreSQL (database `prefect`), the process work pools
`gpucost-fetchers` and `gpucost-publisher` (concurrency limit 1), N fetcher workers and one
publisher worker, each worker with its own local data folder; the pools are made through
the server's REST API, and a worker is ready once its heartbeat reaches the server.
"""

from __future__ import annotations

import http.client
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote, urlsplit

from gpucost.cluster.postgres import PG_ROLE, _pg_password
from gpucost.cluster.processes import HOST, ClusterStartError, Server
from gpucost.cluster.settings import CONFIG_NAME, ClusterSettings

FETCH_POOL, PUBLISH_POOL = "gpucost-fetchers", "gpucost-publisher"
# what a worker polls with: a flow run is picked up within 2 s instead of Prefect's 10
WORKER_QUERY_SECONDS = "2"
# flow runs a worker runs at once: one batch per fetcher (a batch already fetches its sources
# in threads), so the batches of a refresh spread over the machines instead of all going to
# whichever worker polled first
WORKER_LIMIT = "1"


def _prefect_servers(dir: Path, names: list[str], ports: dict[str, list[int]],
                     settings: ClusterSettings) -> list[Server]:
    """The Prefect server's command and each worker's in `names` (fetcher-N on FETCH_POOL,
    publisher-N on PUBLISH_POOL)."""
    pg_port = ports["postgres"][0]
    password = quote(_pg_password(settings), safe="")
    prefect_port = ports["prefect"][0]
    servers = [Server(
        "prefect", [sys.executable, "-m", "prefect", "server", "start", "--host", HOST,
                    "--port", str(prefect_port)],
        {"PREFECT_HOME": str(dir / "prefect"),
         "PREFECT_API_DATABASE_CONNECTION_URL":
             f"postgresql+asyncpg://{PG_ROLE}:{password}@{HOST}:{pg_port}/prefect",
         "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PREFECT_UI_ENABLED": "false",
         "DO_NOT_TRACK": "1"},
        str(dir / "prefect"), prefect_port, ports["prefect"], "http:/api/health")]

    for name in names:
        if not name.startswith(("fetcher-", "publisher-")):
            continue
        pool = FETCH_POOL if name.startswith("fetcher-") else PUBLISH_POOL
        home = dir / "workers" / name
        port = ports[name][0]
        servers.append(Server(
            name, [sys.executable, "-m", "prefect", "worker", "start", "--pool", pool,
                   "--name", name, "--type", "process", "--with-healthcheck",
                   "--install-policy", "never", "--no-create-pool-if-not-found",
                   "--limit", WORKER_LIMIT],
            {"PREFECT_API_URL": settings.prefect_api_url,
             "GPUCOST_CLUSTER_CONFIG": str(dir / CONFIG_NAME),
             "GPUCOST_WORKER_NAME": name, "GPUCOST_DATA_DIR": str(home),
             "PREFECT_HOME": str(home / "prefect"), "DO_NOT_TRACK": "1",
             "PREFECT_WORKER_WEBSERVER_HOST": HOST, "PREFECT_WORKER_WEBSERVER_PORT": str(port),
             "PREFECT_WORKER_QUERY_SECONDS": WORKER_QUERY_SECONDS,
             "PATH": os.environ.get("PATH", os.defpath)},
            str(home), port, ports[name], "http:/health", extra={"pool": pool}))
    return servers


def _api(settings: ClusterSettings, method: str, path: str, body: object = None
         ) -> tuple[int, object]:
    """One call of the cluster's Prefect REST API (loopback, no proxy)."""
    parts = urlsplit(settings.prefect_api_url)
    conn = http.client.HTTPConnection(HOST, parts.port, timeout=settings.timeout_s)
    try:
        payload = json.dumps(body).encode() if body is not None else None
        conn.request(method, parts.path.rstrip("/") + path, body=payload,
                     headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        data = resp.read()
        return resp.status, (json.loads(data) if data else None)
    finally:
        conn.close()


def _create_pools(settings: ClusterSettings, template: dict) -> None:
    """The two process work pools; the publisher's concurrency limit is 1 (one publish at a
    time), set again when the pool exists."""
    for name, limit in ((FETCH_POOL, None), (PUBLISH_POOL, 1)):
        status, body = _api(settings, "POST", "/work_pools/", {
            "name": name, "type": "process", "base_job_template": template,
            "concurrency_limit": limit})
        if status == 409:
            status, body = _api(settings, "PATCH", f"/work_pools/{name}",
                                {"concurrency_limit": limit})
        if status not in (200, 201, 204):
            raise ClusterStartError(f"creating work pool {name}: HTTP {status} {body}")


def _workers(settings: ClusterSettings, pool: str) -> list[dict]:
    status, body = _api(settings, "POST", f"/work_pools/{pool}/workers/filter", {})
    return body if status == 200 and isinstance(body, list) else []


def workers_online(settings: ClusterSettings, pool: str) -> dict[str, str]:
    """The workers of `pool` the Prefect server knows, with their status (ONLINE...). A
    worker stopped a moment ago stays ONLINE until its heartbeats are missed."""
    return {w["name"]: w.get("status", "") for w in _workers(settings, pool)}


def _heartbeat_since(settings: ClusterSettings, pool: str, name: str, since: float
                     ) -> Callable[[], bool]:
    """Whether worker `name` sent a heartbeat after `since` (epoch seconds): a restarted
    worker's old record says ONLINE before the new process has registered."""
    from datetime import datetime

    def ready() -> bool:
        for worker in _workers(settings, pool):
            if worker["name"] == name and worker.get("status") == "ONLINE":
                beat = datetime.fromisoformat(worker["last_heartbeat_time"].replace(
                    "Z", "+00:00"))
                return beat.timestamp() >= since - 1.0
        return False
    return ready


def _process_template() -> dict:
    from prefect.workers.process import ProcessWorker

    return dict(ProcessWorker.get_default_base_job_template())
