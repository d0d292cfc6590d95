"""The raw layer's tables as the loader writes them: the DDL (schema.sql, run on every
connect of the writer) and the columns the loader fills in each table. The writer is
warehouse/store.py (RawStore); the shared raw layer of cluster mode types PRICE_COLUMNS
again in its Iceberg schema (cluster/raw_tables.py).
"""

from __future__ import annotations

from gpucost.warehouse import WAREHOUSE_DIR

SCHEMA_SQL = (WAREHOUSE_DIR / "schema.sql").read_text(encoding="utf-8")
RAW_ROW_MAX_CHARS = 2000

PRICE_COLUMNS = [
    "fetch_id", "source", "provider", "sku", "region", "pricing_model", "os", "currency",
    "price_per_hour", "gpu_name_raw", "gpu_count", "gpu_memory_gb", "vcpus", "ram_gb",
    "observed_at", "offer_count", "price_p10_per_hour", "price_p90_per_hour", "price_kind",
    "payment", "available",
]
REJECT_COLUMNS = ["fetch_id", "source", "reason", "detail", "raw_row", "observed_at"]
SPEC_COLUMNS = [
    "fetch_id", "source", "accelerator_name_raw", "metric", "value", "unit", "observed_at",
]
THROUGHPUT_COLUMNS = [
    "fetch_id", "source", "round", "division", "submitter", "system", "benchmark",
    "accuracy_target", "scenario", "metric", "value", "valid", "ttft_limit_ms",
    "tpot_limit_ms", "ttft_mean_ms", "tpot_mean_ms", "observed_at",
]
TRAINING_RUN_COLUMNS = [
    "fetch_id", "source", "round", "division", "submitter", "system", "benchmark", "run",
    "run_start", "run_stop", "status", "samples", "tokens", "tokens_basis",
    "global_batch_size", "seq_len", "observed_at",
]
TRAINING_SCALING_COLUMNS = [
    "fetch_id", "source", "round", "division", "submitter", "system", "benchmark",
    "scaling_factor", "observed_at",
]
SERVING_POINT_COLUMNS = [
    "fetch_id", "source", "sweep", "model", "hardware_raw", "gpus", "framework", "precision",
    "input_len", "output_len", "concurrency", "output_tokens_per_second",
    "total_tokens_per_second", "output_tokens_per_second_per_gpu_stated",
    "tokens_per_second_per_user", "interactivity_basis", "mean_ttft_ms", "median_ttft_ms",
    "p99_ttft_ms", "mean_tpot_ms", "median_tpot_ms", "p99_tpot_ms", "requests_completed",
    "observed_at",
]
FX_COLUMNS = ["fetch_id", "source", "currency", "rate_per_eur", "rate_date", "observed_at"]
SYSTEM_COLUMNS = [
    "fetch_id", "source", "round", "division", "submitter", "system", "system_name",
    "accelerator_name_raw", "accelerators_per_node", "number_of_nodes", "availability",
    "framework", "observed_at",
]
