"""A fetcher's work without the pools (cluster/flows.py fetch_sources, in process): the same
bytes fetched twice leave one object and add no rows; a changed payload adds one object and
one marker, whose rows carry the new price (issue 28)."""

from __future__ import annotations

from dataclasses import replace

import fault_matrix
import pytest

from gpucost.cluster import flows
from gpucost.cluster.objects import ObjectStore
from gpucost.cluster.settings import ClusterSettings
from gpucost.cluster.shared_raw import SharedRaw

# the recorded page says $1.79; this test serves its own versions of it (1.81, then 1.83), so
# the shared raw layer it leaves behind never holds the recorded bytes that
# test_cluster_refresh.py fetches (the two share the session's cluster, in either order)
RECORDED, FIRST, CHANGED = b"$1.79", b"$1.81", b"$1.83"


def _objects(settings: ClusterSettings) -> set[str]:
    return set(ObjectStore(settings, writer=False).list(settings.raw_bucket, "raw/lambda/"))


def test_same_bytes_once_changed_bytes_once_more(cluster: ClusterSettings,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    raw = SharedRaw(cluster, writer=False)
    server = fault_matrix.MatrixServer(["lambda"])
    with server.serving():
        for k, v in server.env.items():
            monkeypatch.setenv(k, v)
        path, (source, doc) = next(iter(server.docs.items()))
        assert RECORDED in doc.good
        doc = replace(doc, good=doc.good.replace(RECORDED, FIRST, 1))
        server.docs[path] = (source, doc)
        before = _objects(cluster)
        (first,) = flows.fetch_sources(["lambda"], cluster, run_id="t-first")
        (again,) = flows.fetch_sources(["lambda"], cluster, run_id="t-again")
        after_two = _objects(cluster)
        server.docs[path] = (source, replace(doc, good=doc.good.replace(FIRST, CHANGED, 1)))
        (changed,) = flows.fetch_sources(["lambda"], cluster, run_id="t-changed")
    assert first.status == "ok" and first.objects_created == 1
    assert again.status == "unchanged" and again.fetch_ids == [] and again.objects_created == 0
    assert len(after_two - before) == 1
    assert changed.status == "ok" and changed.objects_created == 1
    assert len(_objects(cluster) - after_two) == 1
    (marker,) = [m for m in raw.markers(source="lambda") if m["run_id"] == "t-changed"]
    assert marker["fetch_id"] == changed.fetch_ids[0]
    assert not [m for m in raw.markers(source="lambda") if m["run_id"] == "t-again"]
    rows = raw.observations(source="lambda").to_pylist()
    mine = [r for r in rows if r["fetch_id"] == marker["fetch_id"]]
    assert len(mine) == marker["rows"] == changed.rows > 0
    # the changed row: 1.83 per GPU-hour for the first priced offer, times its GPU count
    assert any(abs(r["price_per_hour"] / r["gpu_count"] - 1.83) < 1e-9 for r in mine)
    assert not any(abs(r["price_per_hour"] / r["gpu_count"] - 1.81) < 1e-9 for r in mine)
