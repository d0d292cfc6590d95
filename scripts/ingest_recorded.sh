#!/usr/bin/env bash
# Replay every recorded price, spec and measured-result file in ../shared/data into a warehouse,
# then rebuild and publish once (offline demo, backfill, and the "ingest everything" timing).
# Usage: scripts/ingest_recorded.sh [DATA_DIR]
# One line per file; refusals that are documented traps of the recorded files are marked, any
# other refusal exits 3 (flows/recorded.py lists the files per source and the traps).
set -u
cd "$(dirname "$0")/.."
[ $# -ge 1 ] && export GPUCOST_DATA_DIR="$1"
S=../shared/data
[ -d "$S" ] || { echo "no recorded data at $S" >&2; exit 2; }
exec .venv/bin/python -m gpucost.flows.recorded "$S"
