"""The object store (cluster/objects.py) against the session's SeaweedFS: content-addressed
payloads, the reader key's limits, streamed files, and the named errors of a store that is
denied, missing, unreachable, silent, or whose volume servers are dead."""

from __future__ import annotations

import hashlib
import os
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from gpucost.cluster.objects import (
    ObjectNotFoundError,
    ObjectStore,
    ObjectStoreDeniedError,
    ObjectStoreUnavailableError,
    classify,
    payload_key,
)
from gpucost.cluster.settings import ClusterSettings


def _unique(name: str) -> str:
    return f"tests/objects/{name}-{os.getpid()}-{time.monotonic_ns()}"


def test_the_same_bytes_twice_make_one_object(cluster: ClusterSettings) -> None:
    store = ObjectStore(cluster, writer=True)
    source = f"testsrc{os.getpid()}"
    content = b"InstanceType,Price\ngpu_1x_h100,2.49\n"
    key, created = store.put_payload(source, "2026-03-01", content, "csv")
    assert created
    sha = hashlib.sha256(content).hexdigest()
    assert key == f"raw/{source}/2026-03-01/{sha}.csv" == payload_key(
        source, "2026-03-01", sha, ".CSV")
    again, created_again = store.put_payload(source, "2026-03-01", content, "csv")
    assert (again, created_again) == (key, False)
    assert store.list(cluster.raw_bucket, f"raw/{source}/") == {key: len(content)}
    assert store.get_bytes(cluster.raw_bucket, key) == content
    # changed bytes are a second object beside the first
    changed, created_changed = store.put_payload(source, "2026-03-01", content + b"x", "csv")
    assert created_changed and changed != key
    assert set(store.list(cluster.raw_bucket, f"raw/{source}/")) == {key, changed}


def test_the_reader_key_reads_the_published_bucket_and_cannot_write(
        cluster: ClusterSettings) -> None:
    writer, reader = ObjectStore(cluster, writer=True), ObjectStore(cluster, writer=False)
    key = _unique("readable") + ".txt"
    writer.put_bytes(cluster.published_bucket, key, b"published")
    assert reader.get_bytes(cluster.published_bucket, key) == b"published"
    assert reader.size(cluster.published_bucket, key) == 9
    assert key in reader.list(cluster.published_bucket, "tests/objects/")
    for attempt in (lambda: reader.put_bytes(cluster.published_bucket, key, b"overwritten"),
                    lambda: reader.put_bytes(cluster.published_bucket, key + ".new", b"new"),
                    lambda: reader.delete(cluster.published_bucket, key),
                    lambda: reader.put_payload("skypilot", "2026-03-01", b"x", "csv")):
        with pytest.raises(ObjectStoreDeniedError) as denied:
            attempt()
        message = str(denied.value)
        assert "access denied to the reader key" in message and cluster.reader_key in message
        assert "\n" not in message and cluster.reader_secret not in message
    assert writer.get_bytes(cluster.published_bucket, key) == b"published"
    assert not writer.exists(cluster.published_bucket, key + ".new")


def test_a_wrong_secret_is_denied_and_never_shown(cluster: ClusterSettings) -> None:
    wrong = replace(cluster, writer_secret="not-the-secret-" + "9" * 12)
    with pytest.raises(ObjectStoreDeniedError) as denied:
        ObjectStore(wrong, writer=True).put_bytes(cluster.published_bucket, _unique("x"), b"x")
    assert "the key or its secret is wrong" in str(denied.value)
    assert wrong.writer_secret not in str(denied.value)


def test_a_missing_object_is_named(cluster: ClusterSettings) -> None:
    store = ObjectStore(cluster, writer=False)
    key = _unique("missing")
    for attempt in (lambda: store.get_bytes(cluster.published_bucket, key),
                    lambda: store.size(cluster.published_bucket, key),
                    lambda: store.download(cluster.published_bucket, key, Path("/nonexistent"))):
        with pytest.raises(ObjectNotFoundError, match="no such object"):
            attempt()
    assert not store.exists(cluster.published_bucket, key)
    assert store.list(cluster.published_bucket, key + "/") == {}
    writer = ObjectStore(cluster, writer=True)
    assert writer.delete(cluster.published_bucket, key) is False
    # a local file's error is its own, never taken for the store's
    with pytest.raises(FileNotFoundError) as local:
        writer.put_file(cluster.published_bucket, key, Path("/nonexistent/warehouse.duckdb"))
    assert not isinstance(local.value, ObjectNotFoundError)


def test_a_file_is_streamed_up_and_down_whole(cluster: ClusterSettings, tmp_path: Path) -> None:
    """More than one multipart part; the download lands under a temporary name first."""
    src = tmp_path / "big.bin"
    src.write_bytes(os.urandom(1 << 20) * 12 + b"tail")
    store, reader = ObjectStore(cluster, writer=True), ObjectStore(cluster, writer=False)
    key = _unique("big") + ".bin"
    seen: list[int] = []
    assert store.put_file(cluster.published_bucket, key, src, progress=seen.append) \
        == src.stat().st_size
    assert seen[-1] == src.stat().st_size and len(seen) >= 2
    assert reader.size(cluster.published_bucket, key) == src.stat().st_size
    dest = tmp_path / "down" / "big.bin"
    dest.parent.mkdir()
    dest.write_bytes(b"an older copy")
    size, sha = reader.download(cluster.published_bucket, key, dest)
    assert (size, sha) == (src.stat().st_size, hashlib.sha256(src.read_bytes()).hexdigest())
    assert dest.read_bytes() == src.read_bytes()
    assert sorted(p.name for p in dest.parent.iterdir()) == ["big.bin"]  # no temporary left
    assert store.delete(cluster.published_bucket, key)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_store_is_named_at_once() -> None:
    settings = ClusterSettings(s3_endpoint=f"http://127.0.0.1:{_closed_port()}",
                               reader_key="reader", reader_secret="reader-secret-123",
                               timeout_s=5)
    start = time.monotonic()
    with pytest.raises(ObjectStoreUnavailableError) as failed:
        ObjectStore(settings, writer=False).get_bytes("gpucost-published", "CURRENT")
    assert time.monotonic() - start < 2
    message = str(failed.value)
    assert message.startswith("reading s3://gpucost-published/CURRENT: the object store at "
                              "http://127.0.0.1:")
    assert "Could not connect" in message and "\n" not in message


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A port that accepts connections and never answers (a hung server)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(srv.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield srv.getsockname()[1]
    stop.set()
    thread.join()
    for c in held:
        c.close()
    srv.close()


def test_a_silent_store_times_out_after_the_client_timeout(silent_server: int) -> None:
    settings = ClusterSettings(s3_endpoint=f"127.0.0.1:{silent_server}", reader_key="reader",
                               reader_secret="reader-secret-123", timeout_s=1)
    store = ObjectStore(settings, writer=False)
    start = time.monotonic()
    with pytest.raises(ObjectStoreUnavailableError, match="no answer within 1 s"):
        store.get_bytes("gpucost-published", "CURRENT")
    assert time.monotonic() - start < 2.5  # one attempt: a timeout is not tried again


def test_a_write_to_dead_volume_servers_fails_in_time(cluster: ClusterSettings,
                                                      cluster_dir: Path) -> None:
    """With every volume server down the S3 gateway waits (30 s) for a volume to write to;
    the client gives up after its timeout (plus curl's 5-second speed average for a request
    with a body: objects.py) with the named error, and writes work again once they are back."""
    from gpucost.cluster import servers

    fast = replace(cluster, timeout_s=1.0)
    store = ObjectStore(fast, writer=True)
    key = _unique("dead-volume")
    for name in ("volume-1", "volume-2"):
        servers.stop_server(cluster_dir, name)
    try:
        start = time.monotonic()
        with pytest.raises(ObjectStoreUnavailableError) as failed:
            store.put_bytes(cluster.raw_bucket, key, b"nowhere to go")
        took = time.monotonic() - start
        assert took < 10, took
        print(f"dead volume servers: the write failed after {took:.1f} s")
        assert "is unavailable" in str(failed.value) and "\n" not in str(failed.value)
    finally:
        for name in ("volume-1", "volume-2"):
            servers.start_server(cluster_dir, name)
    ObjectStore(cluster, writer=True).put_bytes(cluster.raw_bucket, key, b"written again")
    assert ObjectStore(cluster, writer=False).get_bytes(cluster.raw_bucket, key) \
        == b"written again"


@pytest.mark.parametrize(("text", "kind"), [
    ("When initiating multiple part upload for key 'x' in bucket 'b': AWS Error ACCESS_DENIED "
     "during CreateMultipartUpload operation: Access Denied.", ObjectStoreDeniedError),
    ("AWS Error SIGNATURE_DOES_NOT_MATCH during PutObject operation", ObjectStoreDeniedError),
    ("AWS Error NETWORK_CONNECTION during HeadObject operation: curlCode: 7, Could not connect "
     "to server", ObjectStoreUnavailableError),
    ("AWS Error NETWORK_CONNECTION during UploadPart operation: curlCode: 28, Timeout was "
     "reached", ObjectStoreUnavailableError),
    ("AWS Error INTERNAL_FAILURE during GetObject operation: We encountered an internal error",
     ObjectStoreUnavailableError),
    ("AWS Error NO_SUCH_BUCKET during PutObject operation", ObjectNotFoundError),
])
def test_pyarrow_errors_map_to_named_ones(text: str, kind: type) -> None:
    assert classify(OSError(text)) is kind
    assert classify(FileNotFoundError("Path does not exist 'b/k'")) is ObjectNotFoundError
