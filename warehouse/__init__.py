"""Where it is kept: the raw layer (append-only), safe publishing, exports."""

import os
from pathlib import Path

WAREHOUSE_DIR = Path(__file__).resolve().parent


def data_dir() -> Path:
    """Root of all warehouse files: GPUCOST_DATA_DIR, else warehouse/data/ (git-ignored)."""
    return Path(os.environ.get("GPUCOST_DATA_DIR") or WAREHOUSE_DIR / "data").resolve()


# DuckDB's own memory for a write (a load, a publish): a refresh keeps to a small box's memory
# (benchmarks/RESULTS.md: peak RSS of a refresh at 100M rows), spilling to a temporary file
# beside the database past it. GPUCOST_MEMORY_LIMIT overrides it (any DuckDB size: 2GB).
DEFAULT_MEMORY_LIMIT = "512MB"


def memory_limit() -> str:
    return os.environ.get("GPUCOST_MEMORY_LIMIT") or DEFAULT_MEMORY_LIMIT


def rebuild_memory_limit() -> str | None:
    """DuckDB's memory for a full rebuild of the history models (models/incremental.py):
    GPUCOST_REBUILD_MEMORY_LIMIT, else None (DuckDB's default, 80% of RAM)."""
    return os.environ.get("GPUCOST_REBUILD_MEMORY_LIMIT") or None
