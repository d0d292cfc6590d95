"""Load the curated catalog (CSV data in git) into schema `curated` of a build database, typed.

Every cell is trimmed and an empty one becomes null; the columns CURATED_TABLES names are cast
to their type (the others stay text), so the staging models only rename and apply rules. A
malformed figure fails the load loudly (CuratedDataError, naming the file) rather than being
guessed here.
"""

from __future__ import annotations

import csv
from pathlib import Path

import duckdb

from gpucost.catalog import CATALOG_DIR


def _typed(*, double: str = "", date: str = "", integer: str = "",
           boolean: str = "") -> dict[str, str]:
    """{column: type} from space-separated column names per type."""
    types = {"double": double, "date": date, "integer": integer, "boolean": boolean}
    return {column: kind for kind, columns in types.items() for column in columns.split()}


# each curated CSV (catalog/<name>.csv) with the type of its non-text columns
CURATED_TABLES: dict[str, dict[str, str]] = {
    "accelerators": _typed(
        date="launch_date announce_date purchase_price_date",
        double="memory_gb memory_bw_tbps interconnect_bw_gbps tdp_w die_area_mm2 "
               "peak_fp64_dense_tflops peak_fp64_matrix_dense_tflops peak_fp32_dense_tflops "
               "peak_tf32_dense_tflops peak_bf16_dense_tflops peak_fp16_dense_tflops "
               "peak_fp8_dense_tflops peak_int8_dense_tflops peak_fp4_dense_tflops "
               "vendor_bf16_sparse_tflops purchase_price_usd"),
    # per-cell provenance of accelerators.csv (issue 14): source, document, verification level
    # (its value stays text: a cell holds a figure or a date)
    "accelerator_spec_sources": {},
    # which spec source wins a cell, and which metrics each may fill (int_spec_source_precedence)
    "spec_source_precedence": _typed(integer="source_rank"),
    "aliases": {},
    "reference_prices": _typed(double="gpu_count price_per_hour", date="observed_date"),
    "assumptions": _typed(double="value"),
    # export-control thresholds (issue 4)
    "export_control_thresholds": _typed(double="tpp_min tpp_max pd_min pd_max"),
    # cost models (issue 5): scenarios, published runs, presets
    "training_scenarios": _typed(
        double="params_active params_total tokens tokens_per_param n_layers d_model seq_len "
               "images tokens_per_image vision_params n_gpus days mfu goodput price_per_gpu_hour",
        boolean="vision_frozen"),
    "training_runs": _typed(
        double="params_active params_total tokens reported_gpu_hours n_gpus n_layers d_model "
               "seq_len reported_mfu"),
    "cost_presets": _typed(
        double="server_cost_overhead gpu_share_of_hardware network_fraction_of_cluster "
               "electricity_usd_per_kwh pue staff_share_of_total experiment_multiplier "
               "operating_period_days"),
    "inference_scenarios": _typed(
        double="params_active params_total n_layers n_kv_heads head_dim context_tokens "
               "batch_size claimed_ratio claimed_usd_per_million_output_tokens"),
    # measured inference (issue 12): rack/system prices, systems whose JSON is unpublished
    "system_prices": _typed(double="accelerators_per_system system_price_usd", date="price_date"),
    # per-GPU-hour costs published by an analyst model (SemiAnalysis TCO, as InferenceX uses)
    "analyst_gpu_costs": _typed(double="price_per_gpu_hour", date="price_date"),
    "mlperf_systems": _typed(double="accelerators_per_node number_of_nodes"),
    "mlperf_benchmarks": _typed(double="params_active params_total n_layers n_kv_heads head_dim"),
    # measured training (issue 25): MLPerf Training benchmarks' model FLOPs, results' precision
    "mlperf_training_benchmarks": _typed(
        double="params_active model_flops_per_token_per_param seq_len"),
    "mlperf_training_precision": {},
    # serving sweeps (issue 26): the hardware of InferenceX results that do not state it, cited
    "inferencex_hardware": _typed(double="gpus"),
    # MLPerf rounds' publication days (issue 26): the date a result is observed at
    "mlperf_rounds": _typed(date="published_on"),
    # training feasibility and calibrated utilisation (issue 11)
    "scale_up_domains": _typed(integer="domain_size node_gpus", double="bandwidth_gbps"),
    "mfu_model": _typed(double="coefficient"),
    # which MLPerf Training pair sets a part's speed factor (issue 38): part, anchor, benchmark
    "mfu_factor_pairs": {},
    # who sells an offer (issue 24): aggregators and marketplaces, sellers' other spellings
    "providers": {},
    "seller_names": {},
}


class CuratedDataError(Exception):
    """A curated CSV is missing, empty, has no header, lacks a typed column or holds a cell
    that does not cast to its column's type."""


def _column(name: str, kind: str | None) -> str:
    cell = f"""nullif(trim("{name}"), '')"""
    return f'cast({cell} as {kind}) as "{name}"' if kind else f'{cell} as "{name}"'


def load_curated(con: duckdb.DuckDBPyConnection, catalog_dir: Path = CATALOG_DIR) -> dict[str, int]:
    """Create curated.<table> for each curated CSV, typed (see above); returns row counts."""
    con.execute("create schema if not exists curated")
    counts: dict[str, int] = {}
    for name, types in CURATED_TABLES.items():
        path = catalog_dir / f"{name}.csv"
        if not path.is_file():
            raise CuratedDataError(f"curated file missing: {path}")
        with path.open(newline="", encoding="utf-8") as fh:
            header = next(csv.reader(fh), None)
        if not header:
            raise CuratedDataError(f"curated file has no header: {path}")
        missing = sorted(set(types) - set(header))
        if missing:
            raise CuratedDataError(f"curated file {path} lacks column(s) {', '.join(missing)}")
        columns = ", ".join(_column(column, types.get(column)) for column in header)
        try:
            con.execute(
                f"create or replace table curated.{name} as select {columns} "
                "from read_csv(?, header = true, all_varchar = true, quote = '\"', "
                "escape = '\"', strict_mode = true)",
                [str(path)],
            )
        except duckdb.ConversionException as exc:
            raise CuratedDataError(f"curated file {path}: {exc}") from exc
        counts[name] = con.execute(f"select count(*) from curated.{name}").fetchall()[0][0]
        if counts[name] == 0:
            raise CuratedDataError(f"curated file has no rows: {path}")
    counts["sources"] = _load_sources(con)
    return counts


def _load_sources(con: duckdb.DuckDBPyConnection) -> int:
    """curated.sources: every registered source with its kind, authority (own, catalog,
    curated: source precedence within a provider), documented live endpoint and description
    (the `source_url` of a replayed payload, which has no URL of its own)."""
    import pandas as pd

    from gpucost.catalog import sources

    frame = pd.DataFrame(
        [(s.name, s.kind, s.authority, s.default_url, s.description)
         for s in (sources.get(n) for n in sources.names())],
        columns=["source", "kind", "authority", "default_url", "description"])
    con.register("_sources", frame)
    try:
        con.execute("create or replace table curated.sources as select * from _sources")
    finally:
        con.unregister("_sources")
    return len(frame)
