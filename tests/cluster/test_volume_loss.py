"""One of the two volume servers killed (issue 28): reads go on (every object has a replica on
each: replication 001), a write fails with a named error within the client timeout (plus
curl's few seconds for a request with a body: cluster/objects.py), and once the server is back
the next publish lands and moves CURRENT."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest

from gpucost.cluster import servers
from gpucost.cluster.objects import ObjectStore, ObjectStoreUnavailableError
from gpucost.cluster.settings import ClusterSettings
from gpucost.cluster.snapshot import publish_snapshot, read_current

TIMEOUT_S = 2.0
CURL_SPEED_WINDOW_S = 6.0  # measured: a write with a body fails ~6 s after the timeout


def test_one_volume_server_killed(cluster: ClusterSettings, cluster_dir: Path,
                                  tmp_path: Path) -> None:
    from gpucost.flows import steps

    writer = ObjectStore(cluster, writer=True)
    key = f"tests/volume-loss-{time.time_ns()}"
    writer.put_bytes(cluster.published_bucket, key, b"written before the loss")
    servers.kill_server(cluster_dir, "volume-2")
    try:
        assert not next(s for s in servers.status(cluster_dir) if s.name == "volume-2").up
        reader = ObjectStore(cluster, writer=False)
        assert reader.get_bytes(cluster.published_bucket, key) == b"written before the loss"
        start = time.monotonic()
        with pytest.raises(ObjectStoreUnavailableError) as failed:
            ObjectStore(replace(cluster, timeout_s=TIMEOUT_S), writer=True).put_bytes(
                cluster.published_bucket, key + "-during", b"x" * 1024)
        took = time.monotonic() - start
        assert took < TIMEOUT_S + CURL_SPEED_WINDOW_S + 2, took
        assert "unavailable" in str(failed.value) and cluster.writer_secret not in str(
            failed.value)
    finally:
        servers.start_server(cluster_dir, "volume-2")
    # the next refresh publishes: a local build, then the snapshot and CURRENT
    steps.build_and_publish(tmp_path)
    record = publish_snapshot(tmp_path, cluster, allow_shrink=True)  # an empty build
    assert read_current(cluster)["key"] == record.key
