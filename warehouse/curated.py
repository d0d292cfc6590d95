"""Load the curated catalog (CSV data in git) into schema `curated` of a build database.

Every column is loaded as text; the staging models cast them, so a malformed figure fails
the build loudly in the model that reads it rather than being guessed here.
"""

from __future__ import annotations

import csv
from pathlib import Path

import duckdb

from gpucost.catalog import CATALOG_DIR

CURATED_TABLES = (
    "accelerators",
    # per-cell provenance of accelerators.csv (issue 14): source, document, verification level
    "accelerator_spec_sources",
    # which spec source wins a cell, and which metrics each may fill (int_spec_source_precedence)
    "spec_source_precedence",
    "aliases",
    "reference_prices",
    "assumptions",
    # export-control thresholds (issue 4)
    "export_control_thresholds",
    # cost models (issue 5): scenarios, published runs, presets
    "training_scenarios",
    "training_runs",
    "cost_presets",
    "inference_scenarios",
    # measured inference (issue 12): rack/system prices, systems whose JSON is unpublished
    "system_prices",
    # per-GPU-hour costs published by an analyst model (SemiAnalysis TCO, as InferenceX uses)
    "analyst_gpu_costs",
    "mlperf_systems",
    "mlperf_benchmarks",
    # measured training (issue 25): MLPerf Training benchmarks' model FLOPs, results' precision
    "mlperf_training_benchmarks",
    "mlperf_training_precision",
    # serving sweeps (issue 26): the hardware of InferenceX results that do not state it, cited
    "inferencex_hardware",
    # MLPerf rounds' publication days (issue 26): the date a result is observed at
    "mlperf_rounds",
    # training feasibility and calibrated utilisation (issue 11)
    "scale_up_domains",
    "mfu_model",
    # who sells an offer (issue 24): aggregators and marketplaces, sellers' other spellings
    "providers",
    "seller_names",
)


class CuratedDataError(Exception):
    """A curated CSV is missing, empty or has no header."""


def load_curated(con: duckdb.DuckDBPyConnection, catalog_dir: Path = CATALOG_DIR) -> dict[str, int]:
    """Create curated.<table> for each curated CSV; returns row counts."""
    con.execute("create schema if not exists curated")
    counts: dict[str, int] = {}
    for name in CURATED_TABLES:
        path = catalog_dir / f"{name}.csv"
        if not path.is_file():
            raise CuratedDataError(f"curated file missing: {path}")
        with path.open(newline="", encoding="utf-8") as fh:
            header = next(csv.reader(fh), None)
        if not header:
            raise CuratedDataError(f"curated file has no header: {path}")
        con.execute(
            f"create or replace table curated.{name} as "
            "select * from read_csv(?, header = true, all_varchar = true, quote = '\"', "
            "escape = '\"', strict_mode = true)",
            [str(path)],
        )
        counts[name] = con.execute(f"select count(*) from curated.{name}").fetchall()[0][0]
        if counts[name] == 0:
            raise CuratedDataError(f"curated file has no rows: {path}")
    counts["sources"] = _load_sources(con)
    return counts


def _load_sources(con: duckdb.DuckDBPyConnection) -> int:
    """curated.sources: every registered source with its kind, documented live endpoint and
    description (the `source_url` of a replayed payload, which has no URL of its own)."""
    import pandas as pd

    from gpucost.catalog import sources

    frame = pd.DataFrame(
        [(s.name, s.kind, s.default_url, s.description)
         for s in (sources.get(n) for n in sources.names())],
        columns=["source", "kind", "default_url", "description"])
    con.register("_sources", frame)
    try:
        con.execute("create or replace table curated.sources as select * from _sources")
    finally:
        con.unregister("_sources")
    return len(frame)
