"""Child process of tests/warehouse/test_kill.py: run `ingest_files`, SIGKILL itself at a moment.

    python tests/support/kill_child.py '<json: data_dir, files, observed_at, moment>'

A moment names a hook and when to die there:

- {"sql": REGEX, "n": N, "when": "before" | "after" | "during", "delay_ms": D}: the Nth
  statement (on any DuckDB connection) whose text matches REGEX (searched in the lowercased
  statement); "during" starts a timer of D ms that kills the process while the statement runs;
- {"call": "module:attr", "n": N, "when": ...}: the Nth call of a Python function;
- {"replace": SUFFIX, "n": N, "when": ...}: the Nth os.replace whose target ends with SUFFIX.

Nothing here is used by the project itself: the hooks wrap duckdb.connect, functions and
os.replace from the outside, so the code under test runs unchanged.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import signal
import sys
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


class Trigger:
    def __init__(self, moment: dict[str, Any]):
        self.moment = moment
        self.seen = 0
        self.lock = threading.Lock()

    def hit(self) -> bool:
        with self.lock:
            self.seen += 1
            return self.seen == self.moment.get("n", 1)

    def around(self, fn, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003
        when = self.moment.get("when", "before")
        if when == "before":
            die()
        if when == "during":
            threading.Timer(self.moment.get("delay_ms", 0) / 1000, die).start()
        result = fn(*args, **kwargs)
        if when == "after":
            die()
        return result


def install(moment: dict[str, Any]) -> None:
    trigger = Trigger(moment)
    if "sql" in moment:
        import duckdb

        pattern = re.compile(moment["sql"])
        real_connect = duckdb.connect

        class Connection:
            def __init__(self, con):  # noqa: ANN001
                self._con = con

            def __getattr__(self, name: str):  # noqa: ANN204
                return getattr(self._con, name)

            def execute(self, sql, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003
                if pattern.search(str(sql).strip().lower()) and trigger.hit():
                    return trigger.around(self._con.execute, sql, *args, **kwargs)
                return self._con.execute(sql, *args, **kwargs)

        duckdb.connect = lambda *a, **k: Connection(real_connect(*a, **k))
    elif "call" in moment:
        module_name, attr = moment["call"].split(":")
        owner: Any = importlib.import_module(module_name)
        *path, name = attr.split(".")
        for part in path:
            owner = getattr(owner, part)
        real = getattr(owner, name)

        def wrapper(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            if trigger.hit():
                return trigger.around(real, *args, **kwargs)
            return real(*args, **kwargs)

        setattr(owner, name, wrapper)
    elif "replace" in moment:
        real_replace = os.replace
        suffix = moment["replace"]

        def replace(src, dst, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
            if str(dst).endswith(suffix) and trigger.hit():
                return trigger.around(real_replace, src, dst, *args, **kwargs)
            return real_replace(src, dst, *args, **kwargs)

        os.replace = replace
    else:
        raise ValueError(f"unknown moment {moment}")


def main() -> None:
    spec = json.loads(sys.argv[1])
    from gpucost.flows.ingest import ingest_files  # imported before the hooks are installed

    install(spec["moment"])
    ingest_files(spec["source"], [Path(f) for f in spec["files"]],
                 observed_at=datetime.fromisoformat(spec["observed_at"]),
                 data_dir=Path(spec["data_dir"]))


if __name__ == "__main__":
    main()
