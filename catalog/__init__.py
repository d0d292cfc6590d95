"""What we know and where we get it: curated reference data and one module per source."""

from pathlib import Path

CATALOG_DIR = Path(__file__).resolve().parent
