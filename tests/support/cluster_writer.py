"""One writer process of the shared raw layer, for tests/cluster/test_shared_raw.py.

    python cluster_writer.py SETTINGS_JSON NAMESPACE SOURCE FETCHES ROWS GO_FILE
        [--die-before-marker]

Opens SharedRaw with the writer key on namespace NAMESPACE and creates its tables (several
writers at once: the creation race), writes GO_FILE.ready.<pid>, waits until GO_FILE exists
(so that all writers of a test start appending together, after their imports), appends
FETCHES fetches of ROWS price rows each under source SOURCE, and prints one JSON line: the
fetch ids, the commit stats (attempts, conflicts, seconds per append) and when it started
and finished appending (unix time).

--die-before-marker: append the first fetch's price rows, then exit with status 3 before
its marker is committed, as a writer killed between its two commits would.
"""

from __future__ import annotations

import json
import os
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from gpucost.cluster.settings import load_settings
from gpucost.cluster.shared_raw import SharedRaw

DIED_EXIT = 3


def price_rows(index: int, rows: int) -> list[dict[str, object]]:
    observed = datetime(2026, 1, 15, tzinfo=UTC) + timedelta(minutes=index)
    return [{"provider": "aws", "sku": f"p5.{n}xlarge", "region": "us-east-1",
             "pricing_model": "on_demand", "currency": "USD", "price_per_hour": 1.0 + n,
             "gpu_name_raw": "H100", "gpu_count": 8.0, "observed_at": observed}
            for n in range(rows)]


def main(argv: list[str]) -> int:
    settings_path, namespace, source, fetches, rows, go_file = argv[:6]
    die = "--die-before-marker" in argv[6:]
    raw = SharedRaw(load_settings(Path(settings_path)), namespace=namespace)
    raw.ensure_tables()
    if die:
        def dead(*_args: object, **_kwargs: object) -> None:
            os._exit(DIED_EXIT)

        raw._commit_marker = dead  # type: ignore[method-assign]
    go = Path(go_file)
    go.with_name(f"{go.name}.ready.{os.getpid()}").touch()
    deadline = time.monotonic() + 60
    while not go.exists():
        if time.monotonic() > deadline:
            raise SystemExit("no go file within 60 s")
        time.sleep(0.01)
    started = time.time()
    ids = []
    for index in range(int(fetches)):
        ids.append(raw.append_fetch(
            {"source": source, "run_id": f"writer-{os.getpid()}", "sha256": f"{source}-{index}",
             "stream": "test", "observed_at": datetime.now(UTC)},
            price_rows(index, int(rows))))
    print(json.dumps({"fetch_ids": ids, "started": started, "finished": time.time(),
                      **raw.stats.as_dict()}))
    raw.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
