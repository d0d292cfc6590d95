"""`gpucost cluster up|down|status` (cluster/servers.py): the servers the other cluster tests
use, checked for what those tests take for granted: every server answers, the reader key
cannot write, the pools and workers are there, a volume server can go down without losing
reads, and the cluster comes back with the same settings after a stop or a crash.

The tests that stop servers come last in the file and leave the cluster running as before
(same ports, keys and data): the session fixture goes on serving the files after this one.
"""

from __future__ import annotations

import json
import os
import signal
import time
import urllib.request
from pathlib import Path

import pytest

from gpucost.cluster import servers
from gpucost.cluster.settings import ClusterSettings
from gpucost.flows.cli.main import main

NAMES = ["master", "volume-1", "volume-2", "filer", "s3", "postgres", "prefect",
         "fetcher-1", "fetcher-2", "publisher-1"]


def _statuses(folder: Path) -> dict[str, servers.ServerStatus]:
    return {s.name: s for s in servers.status(folder)}


def _get(settings: ClusterSettings, key: str, *, writer: bool, bucket: str = "") -> bytes:
    client = servers.s3_client(settings, writer=writer)
    return client.get_object(Bucket=bucket or settings.raw_bucket, Key=key)["Body"].read()


def _api_get(settings: ClusterSettings, path: str) -> dict:
    with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(
            settings.prefect_api_url + path, timeout=5) as resp:
        return json.loads(resp.read())


def test_every_server_answers(cluster: ClusterSettings, cluster_dir: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    rows = servers.status(cluster_dir)
    assert [r.name for r in rows] == NAMES
    assert all(r.up for r in rows), rows
    assert len({r.port for r in rows}) == len(rows)
    assert main(["cluster", "status", "--dir", str(cluster_dir)]) == 0
    out = capsys.readouterr().out
    assert out.count(" up ") == len(NAMES)
    # the settings file is what up returned, written 0600 (it holds the secrets)
    assert servers.read_cluster_settings(cluster_dir) == cluster
    assert (cluster_dir / "cluster.json").stat().st_mode & 0o777 == 0o600
    assert cluster.s3_endpoint.startswith("http://127.0.0.1:")
    assert cluster.postgres_url.startswith("postgresql+psycopg2://gpucost:")
    assert cluster.postgres_url.endswith("/gpucost")


def test_the_reader_key_cannot_write(cluster: ClusterSettings) -> None:
    import pyarrow.fs
    from botocore.exceptions import ClientError

    writer = servers.s3_client(cluster, writer=True)
    reader = servers.s3_client(cluster, writer=False)
    for bucket in (cluster.raw_bucket, cluster.published_bucket):
        writer.put_object(Bucket=bucket, Key="tests/servers/hello.txt", Body=b"hello")
        assert _get(cluster, "tests/servers/hello.txt", writer=True, bucket=bucket) == b"hello"
        assert _get(cluster, "tests/servers/hello.txt", writer=False, bucket=bucket) == b"hello"
        listed = reader.list_objects_v2(Bucket=bucket, Prefix="tests/servers/")
        assert [o["Key"] for o in listed["Contents"]] == ["tests/servers/hello.txt"]
        with pytest.raises(ClientError, match="AccessDenied") as denied:
            reader.put_object(Bucket=bucket, Key="tests/servers/no.txt", Body=b"no")
        assert denied.value.response["Error"]["Code"] == "AccessDenied"
        with pytest.raises(ClientError, match="AccessDenied"):
            reader.delete_object(Bucket=bucket, Key="tests/servers/hello.txt")
    # no key creates a bucket besides the two
    for client in (writer, reader):
        with pytest.raises(ClientError, match="AccessDenied"):
            client.create_bucket(Bucket="gpucost-other")
    # pyarrow (what pyiceberg writes with) says it as an OSError naming ACCESS_DENIED
    fs = pyarrow.fs.S3FileSystem(
        access_key=cluster.reader_key, secret_key=cluster.reader_secret,
        endpoint_override=cluster.s3_endpoint, scheme="http", region=cluster.s3_region,
        connect_timeout=cluster.timeout_s, request_timeout=cluster.timeout_s)
    with pytest.raises(OSError, match="ACCESS_DENIED"):  # noqa: PT012
        with fs.open_output_stream(f"{cluster.published_bucket}/tests/servers/no.txt") as out:
            out.write(b"no")
    with fs.open_input_stream(f"{cluster.published_bucket}/tests/servers/hello.txt") as f:
        assert f.read() == b"hello"


def test_the_pools_and_their_workers(cluster: ClusterSettings, cluster_dir: Path) -> None:
    publisher = _api_get(cluster, f"/work_pools/{servers.PUBLISH_POOL}")
    fetchers = _api_get(cluster, f"/work_pools/{servers.FETCH_POOL}")
    assert (publisher["type"], publisher["concurrency_limit"]) == ("process", 1)
    assert (fetchers["type"], fetchers["concurrency_limit"]) == ("process", None)
    assert publisher["base_job_template"]["job_configuration"]["command"]
    assert servers.workers_online(cluster, servers.FETCH_POOL) == {
        "fetcher-1": "ONLINE", "fetcher-2": "ONLINE"}
    assert servers.workers_online(cluster, servers.PUBLISH_POOL) == {"publisher-1": "ONLINE"}
    # each worker runs with its own name, data folder and Prefect home, never the session's
    record = {s.name: s for s in servers.read_servers(cluster_dir)}["fetcher-2"]
    env = dict(line.split("=", 1) for line in Path(f"/proc/{record.pid}/environ")
               .read_bytes().decode().split("\0") if "=" in line)
    assert env["GPUCOST_WORKER_NAME"] == "fetcher-2"
    assert env["GPUCOST_DATA_DIR"] == str(cluster_dir / "workers" / "fetcher-2")
    assert env["PREFECT_HOME"] == str(cluster_dir / "workers" / "fetcher-2" / "prefect")
    assert env["GPUCOST_CLUSTER_CONFIG"] == str(cluster_dir / "cluster.json")
    assert env["PREFECT_API_URL"] == cluster.prefect_api_url
    assert "GPUCOST_PREFECT_SERVER" not in env  # tests/conftest.py sets it for the session


def test_up_again_starts_nothing(cluster: ClusterSettings, cluster_dir: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    pids = {s.name: s.pid for s in servers.status(cluster_dir)}
    started = time.monotonic()
    again = servers.up(cluster_dir, fetch_workers=2)
    assert time.monotonic() - started < 3
    assert again == cluster
    assert {s.name: s.pid for s in servers.status(cluster_dir)} == pids
    # the command says so and prints the endpoints and keys, never a secret
    assert main(["cluster", "up", "--dir", str(cluster_dir)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("cluster already running in ")
    assert cluster.s3_endpoint in out and cluster.prefect_api_url in out
    assert cluster.writer_key in out and cluster.reader_key in out
    password = cluster.postgres_url.split(":")[2].split("@")[0]
    for secret in (cluster.writer_secret, cluster.reader_secret, password):
        assert secret not in out
    assert {s.name: s.pid for s in servers.status(cluster_dir)} == pids


def test_a_server_that_dies_at_startup_is_named_with_its_log(tmp_path: Path) -> None:
    server = servers.Server("volume-9", ["sh", "-c", "echo 'no space left on device'; exit 3"],
                            {}, str(tmp_path), 1, [1], "http:/status")
    run = servers._Startup(tmp_path, [server])
    run.start("volume-9")
    with pytest.raises(servers.ClusterStartError) as failed:
        run.wait("volume-9", timeout=10)
    message = str(failed.value)
    assert message.startswith("volume-9 exited during startup (exit code 3)")
    assert "no space left on device" in message and "\n" not in message
    assert (tmp_path / "logs" / "volume-9.log").exists()


def test_reads_go_on_while_a_volume_server_is_down(cluster: ClusterSettings,
                                                   cluster_dir: Path) -> None:
    key = "tests/servers/replicated.txt"
    servers.s3_client(cluster, writer=True).put_object(
        Bucket=cluster.raw_bucket, Key=key, Body=b"on both volume servers")
    servers.stop_server(cluster_dir, "volume-2")
    try:
        rows = _statuses(cluster_dir)
        assert not rows["volume-2"].up
        assert "not running" in rows["volume-2"].detail
        assert all(r.up for name, r in rows.items() if name != "volume-2"), rows
        assert main(["cluster", "status", "--dir", str(cluster_dir)]) == 1
        for writer in (True, False):  # replication 001: volume-1 holds a copy
            assert _get(cluster, key, writer=writer) == b"on both volume servers"
    finally:
        servers.start_server(cluster_dir, "volume-2")
    assert all(r.up for r in servers.status(cluster_dir))
    servers.s3_client(cluster, writer=True).put_object(
        Bucket=cluster.raw_bucket, Key="tests/servers/after.txt", Body=b"written again")
    assert _get(cluster, "tests/servers/after.txt", writer=False) == b"written again"


def test_down_then_up_brings_the_same_cluster_back(cluster: ClusterSettings,
                                                   cluster_dir: Path) -> None:
    servers.s3_client(cluster, writer=True).put_object(
        Bucket=cluster.raw_bucket, Key="tests/servers/kept.txt", Body=b"kept")
    assert sorted(servers.down(cluster_dir)) == sorted(NAMES)
    rows = servers.status(cluster_dir)
    assert [r.name for r in rows] == NAMES and not any(r.up for r in rows), rows
    assert servers.down(cluster_dir) == []  # nothing left to stop
    assert main(["cluster", "status", "--dir", str(cluster_dir)]) == 1
    again = servers.up(cluster_dir, fetch_workers=2)
    assert again == cluster  # same ports (they were free), keys and password
    assert all(r.up for r in servers.status(cluster_dir))
    assert _get(cluster, "tests/servers/kept.txt", writer=False) == b"kept"


def test_up_after_a_crash_restarts_everything(cluster: ClusterSettings,
                                              cluster_dir: Path) -> None:
    """Every server SIGKILLed (a crash, an OOM kill): servers.json names dead pids and
    PostgreSQL left its postmaster.pid; `up` starts them all again on the same ports."""
    for record in servers.read_servers(cluster_dir):
        os.killpg(record.pid, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while any(r.up for r in servers.status(cluster_dir)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(r.up for r in servers.status(cluster_dir))
    assert (cluster_dir / "postgres" / "data" / "postmaster.pid").exists()
    assert servers.up(cluster_dir, fetch_workers=2) == cluster
    assert all(r.up for r in servers.status(cluster_dir))
    assert _get(cluster, "tests/servers/kept.txt", writer=True) == b"kept"
    assert servers.workers_online(cluster, servers.PUBLISH_POOL) == {"publisher-1": "ONLINE"}
