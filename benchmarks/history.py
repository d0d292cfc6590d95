"""A generator of synthetic but realistic price history, written straight into raw.duckdb.

Shape: `years` of fetches, one per source x stream per 6-hour refresh, each loading the
offers of that stream (providers x SKUs x regions x pricing models) with prices that drift
slowly and step down now and then, as real rate cards do. Synthetic fetches carry negative
fetch ids so they never collide with the loader's sequence, and GPU names that map through
the real alias table, so every model does real work on them.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from gpucost.warehouse.store import RawStore

# GPU spellings that map through catalog/aliases.csv, with a plausible per-GPU base price.
GPUS = [
    ("H100 SXM", 2.9), ("A100 80GB", 1.6), ("L4", 0.7), ("H200", 3.8), ("B200", 5.5),
    ("L40S", 1.1), ("A10G", 1.0), ("T4", 0.35), ("V100", 0.9), ("RTX 4090", 0.45),
    ("MI300X", 3.2), ("A100 40GB", 1.2),
]
PROVIDERS = 16
STREAMS_PER_PROVIDER = 2
REFRESHES_PER_DAY = 4


def generate(data_dir: Path, rows: int, years: float = 3.0) -> dict[str, int]:
    """Append `rows` synthetic observations (and their fetches) to the raw layer."""
    store = RawStore(data_dir)
    with store.connect():
        pass  # schema
    streams = PROVIDERS * STREAMS_PER_PROVIDER
    refreshes = int(years * 365 * REFRESHES_PER_DAY)
    fetches = streams * refreshes
    per_fetch = max(1, rows // fetches)
    fetches = max(1, rows // per_fetch)
    con = duckdb.connect(str(store.db_path))
    con.execute("set enable_progress_bar = false")
    try:
        con.execute("set preserve_insertion_order = true")
        con.execute(
            f"""
            insert into fetches (fetch_id, run_id, source, stream, mode, url, payload_name,
                started_at, finished_at, observed_at, status, bytes, sha256, rows_loaded,
                rows_rejected)
            select
                -(f + 1) as fetch_id,
                'bench-' || (f // {streams}) as run_id,
                'bench' as source,
                'p' || (f % {streams} // {STREAMS_PER_PROVIDER}) || '-s'
                    || (f % {STREAMS_PER_PROVIDER}) as stream,
                'live', 'https://example.invalid/prices', 'page.json',
                ts, ts, ts, 'ok', {per_fetch * 120}, md5(f::varchar), {per_fetch}, 0
            from (
                select f, timestamptz '2023-01-01 00:00:00+00'
                    + to_hours((f // {streams}) * (24 // {REFRESHES_PER_DAY})) as ts
                from range({fetches}) t(f)
            )
            """
        )
        gpu_values = ", ".join(f"({i}, '{g}', {p})" for i, (g, p) in enumerate(GPUS))
        con.execute(
            f"""
            insert into price_observations (fetch_id, source, provider, sku, region,
                pricing_model, os, currency, price_per_hour, gpu_name_raw, gpu_count,
                gpu_memory_gb, vcpus, ram_gb, observed_at)
            with gpus(gpu_idx, gpu_name, base_price) as (values {gpu_values}),
            numbered as (
                select
                    i,
                    i // {per_fetch} as f,
                    i % {per_fetch} as k
                from range({fetches * per_fetch}) t(i)
            )
            select
                -(n.f + 1) as fetch_id,
                'bench' as source,
                'provider' || (n.f % {streams} // {STREAMS_PER_PROVIDER}) as provider,
                'sku-' || (n.k % 97) || '-' || g.gpu_name as sku,
                'region-' || (n.k // 97) as region,
                case when n.k % 5 = 0 then 'spot' else 'on_demand' end as pricing_model,
                'linux', 'USD',
                round(g.base_price * (1 + (n.k % 8)) * (1 - 0.1 * ((n.f // {streams}) // 700))
                      * (case when n.k % 5 = 0 then 0.45 else 1.0 end)
                      * (1 + 0.02 * sin(n.f / 97.0)), 4) as price_per_hour,
                g.gpu_name as gpu_name_raw,
                (1 + (n.k % 8))::double as gpu_count,
                null, null, null,
                timestamptz '2023-01-01 00:00:00+00'
                    + to_hours((n.f // {streams}) * (24 // {REFRESHES_PER_DAY})) as observed_at
            from numbered n
            join gpus g on g.gpu_idx = n.k % {len(GPUS)}
            """
        )
        con.execute("checkpoint")
    finally:
        con.close()
    with store.connect() as con:  # the loader's one-time migration builds the daily rollup
        counts = {
            "fetches": con.execute("select count(*) from fetches").fetchone()[0],
            "price_observations": con.execute(
                "select count(*) from price_observations").fetchone()[0],
            "price_daily": con.execute("select count(*) from price_daily").fetchone()[0],
        }
    return counts
