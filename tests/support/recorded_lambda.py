"""A small real load: the recorded SkyPilot-format Lambda catalog of 2026-05-07 (../shared/data,
prices/skypilot_format/lambda_vms_2026-05-07.csv, read in place), replayed and published by the
project's own code (ingest_files, build_and_publish), as `gpucost ingest` does.

The figure the tests read from it, worked out by hand from the file: its README says Price is
USD per hour for the whole instance and that Lambda's fetcher writes every type into all 17
regions; the 17 rows of `gpu_8x_h100_sxm5` (AcceleratorName H100, AcceleratorCount 8.0) all
say Price 31.92, so gpu_offers holds 17 on-demand H100 offers of that sku at
31.92 / 8 = 3.99 USD per GPU-hour (`grep -c '^gpu_8x_h100_sxm5,' <file>` prints 17).
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

LAMBDA_CATALOG = Path("prices") / "skypilot_format" / "lambda_vms_2026-05-07.csv"
H100_SKU = "gpu_8x_h100_sxm5"
H100_OFFERS = 17  # one row per region
H100_USD_PER_GPU_HOUR = 3.99  # 31.92 / 8
H100_QUERY = ("select count(*) as n, min(price_per_gpu_hour) as lo, "
              f"max(price_per_gpu_hour) as hi from gpu_offers where sku = '{H100_SKU}'")


def publish_recorded_lambda(shared_data: Path, data: Path) -> Path:
    """`data` (a fresh data directory) with the recorded Lambda catalog published."""
    from gpucost.flows.ingest import ingest_files
    from gpucost.flows.steps import build_and_publish

    shutil.rmtree(data, ignore_errors=True)
    # the upstream commit time of the file (its README's table)
    [outcome], _ = ingest_files("skypilot", [shared_data / LAMBDA_CATALOG],
                                observed_at=datetime(2026, 5, 7, 7, 27, tzinfo=UTC),
                                data_dir=data, rebuild=False)
    assert outcome.status == "replayed", outcome
    build_and_publish(data)
    return data
