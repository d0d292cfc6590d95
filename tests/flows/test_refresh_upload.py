"""`refresh --upload` with the object storage out of reach: the local publish stands, one line
names what failed, exit 3 (issue 28: "S3 unreachable: refresh --no-prefect still publishes
locally and names what failed"). No server is needed: the endpoint is a closed local port."""

from __future__ import annotations

import socket

import pytest
from test_refresh_output import point_every_source_at_nowhere, root_handlers  # noqa: F401

from gpucost.flows.cli import main as cli
from gpucost.warehouse.publish import connect_readonly


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def offline(tmp_path, monkeypatch, root_handlers):  # noqa: F811  # type: ignore[no-untyped-def]
    point_every_source_at_nowhere(monkeypatch)
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("GPUCOST_CLUSTER_CONFIG", str(tmp_path / "no-cluster.json"))
    return tmp_path


def test_unreachable_object_storage_leaves_the_local_publish(offline, monkeypatch, capfd):
    monkeypatch.setenv("GPUCOST_S3_ENDPOINT", f"http://127.0.0.1:{_closed_port()}")
    monkeypatch.setenv("GPUCOST_S3_WRITER_KEY", "writer-key-1")
    monkeypatch.setenv("GPUCOST_S3_WRITER_SECRET", "writer-secret-never-shown")
    monkeypatch.setenv("GPUCOST_S3_TIMEOUT_S", "1")
    code = cli.main(["refresh", "--no-prefect", "--upload", "--source", "lambda"])
    out, err = capfd.readouterr()
    assert code == 3, out + err
    line = next(x for x in out.splitlines() if x.startswith("object storage:"))
    assert "NOT uploaded (ObjectStoreUnavailableError" in line
    assert line.endswith("the local publish stands")
    assert "writer-secret-never-shown" not in out + err
    assert "Traceback" not in out + err
    con = connect_readonly(offline)  # published locally all the same
    try:
        assert con.execute("select count(*) from gpu_prices").fetchone()[0] > 0
    finally:
        con.close()


def test_upload_without_cluster_settings_says_what_is_missing(offline, capfd):
    code = cli.main(["refresh", "--no-prefect", "--upload", "--source", "lambda"])
    out, _ = capfd.readouterr()
    assert code == 3
    line = next(x for x in out.splitlines() if x.startswith("object storage:"))
    assert "ClusterNotConfiguredError" in line and "GPUCOST_S3_ENDPOINT" in line
