"""Where it is kept: the raw layer (append-only), safe publishing, exports."""

import os
from pathlib import Path

WAREHOUSE_DIR = Path(__file__).resolve().parent


def data_dir() -> Path:
    """Root of all warehouse files: GPUCOST_DATA_DIR, else warehouse/data/ (git-ignored)."""
    return Path(os.environ.get("GPUCOST_DATA_DIR") or WAREHOUSE_DIR / "data").resolve()
