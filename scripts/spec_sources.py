"""Maintain catalog/accelerator_spec_sources.csv, the per-cell provenance of accelerators.csv.

    python scripts/spec_sources.py fallback            # a 'secondary' record for every filled
                                                       # cell that has none yet
    python scripts/spec_sources.py merge FILE.csv ...  # take researched records (FORMAT of
                                                       # issue 14), replacing the accelerators'
                                                       # records, and write their values into
                                                       # accelerators.csv
    python scripts/spec_sources.py summary             # counts by verification level

The provenance value is the truth: `merge` writes it into the accelerators.csv cell (an empty
value empties the cell). A fallback record claims nothing it did not check: verification
'secondary', the row's own source_url, and a note that the cell was not re-read cell by cell.
Standard library only.
"""

from __future__ import annotations

import csv
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ACCELERATORS = ROOT / "catalog" / "accelerators.csv"
SOURCES = ROOT / "catalog" / "accelerator_spec_sources.csv"
HEADER = ["accelerator_id", "metric", "value", "source_url", "document", "verification", "note"]
NUMERIC = [
    "memory_gb", "memory_bw_tbps", "interconnect_bw_gbps", "tdp_w", "die_area_mm2",
    "peak_fp64_dense_tflops", "peak_fp64_matrix_dense_tflops", "peak_fp32_dense_tflops",
    "peak_tf32_dense_tflops", "peak_bf16_dense_tflops", "peak_fp16_dense_tflops",
    "peak_fp8_dense_tflops", "peak_int8_dense_tflops", "peak_fp4_dense_tflops",
    "vendor_bf16_sparse_tflops",
]
DATES = ["launch_date", "announce_date"]
METRICS = NUMERIC + DATES
LEVELS = {"vendor", "secondary", "derived", "unpublished"}
# seed platforms of issue 14: at least 90% of their filled numeric cells read in vendor text
SEED_PLATFORMS = (
    "nvidia-a100-sxm4-40gb", "nvidia-a100-sxm4-80gb", "nvidia-a100-pcie-40gb",
    "nvidia-a100-pcie-80gb", "nvidia-h100-sxm5-80gb", "nvidia-h100-pcie-80gb",
    "nvidia-h100-nvl-94gb", "nvidia-h200-sxm-141gb", "nvidia-b200-sxm-180gb",
    "nvidia-gb200-186gb", "nvidia-rtx-4090-24gb", "google-tpu-v4", "google-tpu-v5e",
    "amd-mi300x-192gb",
)


def read(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        return list(reader.fieldnames or []), list(reader)


def write(path: Path, header: list[str], rows: list[dict[str, str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=header, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def _order(accelerator_ids: list[str]):
    position = {a: i for i, a in enumerate(accelerator_ids)}
    metric_position = {m: i for i, m in enumerate(METRICS)}
    return lambda r: (position.get(r["accelerator_id"], 10**6), r["accelerator_id"],
                      metric_position.get(r["metric"], 99))


def same_value(a: str, b: str) -> bool:
    a, b = a.strip(), b.strip()
    if not a or not b:
        return a == b
    try:
        x, y = float(a), float(b)
    except ValueError:
        return a == b
    return abs(x - y) <= 1e-9 * max(abs(x), 1.0)


def fallback(accelerators: list[dict[str, str]], records: list[dict[str, str]]) -> list[dict]:
    """A 'secondary' record for every filled numeric cell without one."""
    have = {(r["accelerator_id"], r["metric"]) for r in records}
    added = []
    for row in accelerators:
        for metric in NUMERIC:
            value = row[metric].strip()
            if not value or (row["accelerator_id"], metric) in have:
                continue
            added.append({
                "accelerator_id": row["accelerator_id"], "metric": metric, "value": value,
                "source_url": row["source_url"], "document": "catalog row source (not re-read)",
                "verification": "secondary",
                "note": "as curated before issue 14 from the row's source_url and notes; not "
                        "re-checked cell by cell against vendor text",
            })
    return added


def validate(records: list[dict[str, str]], ids: set[str]) -> list[str]:
    errors = []
    seen = set()
    for r in records:
        key = (r["accelerator_id"], r["metric"])
        where = f"{key[0]} {key[1]}"
        if key in seen:
            errors.append(f"{where}: duplicate")
        seen.add(key)
        if r["accelerator_id"] not in ids:
            errors.append(f"{where}: unknown accelerator")
        if r["metric"] not in METRICS:
            errors.append(f"{where}: unknown metric")
        level = r["verification"].strip().lower()
        if level not in LEVELS:
            errors.append(f"{where}: verification {r['verification']!r}")
        if (level == "unpublished") != (not r["value"].strip()):
            errors.append(f"{where}: {level} with value {r['value']!r}")
        if level in {"vendor", "secondary", "derived"} and not r["source_url"].strip():
            errors.append(f"{where}: no source_url")
        if level == "derived" and "=" not in r["note"]:
            errors.append(f"{where}: derived without a rule ('=') in its note")
    return errors


def merge(files: list[Path]) -> None:
    acc_header, accelerators = read(ACCELERATORS)
    _, records = read(SOURCES)
    ids = [r["accelerator_id"] for r in accelerators]
    incoming: list[dict[str, str]] = []
    for path in files:
        header, rows = read(path)
        if header[:len(HEADER)] != HEADER:
            sys.exit(f"{path}: header {header} is not {HEADER}")
        incoming += [{k: (r.get(k) or "").strip() for k in HEADER} for r in rows]
    for r in incoming:
        r["verification"] = r["verification"].lower()
    errors = validate(incoming, set(ids))
    if errors:
        sys.exit("refused:\n  " + "\n  ".join(errors))
    replaced = {r["accelerator_id"] for r in incoming}
    kept = [r for r in records if r["accelerator_id"] not in replaced]
    by_id = {r["accelerator_id"]: r for r in accelerators}
    changes = []
    for r in incoming:
        row = by_id[r["accelerator_id"]]
        old = row[r["metric"]]
        if not same_value(old, r["value"]):
            changes.append(f"{r['accelerator_id']} {r['metric']}: {old or 'empty'} -> "
                           f"{r['value'] or 'empty'} ({r['verification']}, {r['source_url']})")
            row[r["metric"]] = r["value"]
    merged = kept + incoming
    merged += fallback([by_id[a] for a in replaced], merged)
    merged.sort(key=_order(ids))
    write(ACCELERATORS, acc_header, accelerators)
    write(SOURCES, HEADER, merged)
    print(f"merged {len(incoming)} records for {len(replaced)} accelerators; "
          f"{len(changes)} cells changed")
    for line in changes:
        print("  " + line)


def summary() -> None:
    _, accelerators = read(ACCELERATORS)
    _, records = read(SOURCES)
    filled = {(r["accelerator_id"], m) for r in accelerators for m in NUMERIC if r[m].strip()}
    numeric = [r for r in records if (r["accelerator_id"], r["metric"]) in filled]
    print("filled numeric cells:", len(filled), "with provenance:", len(numeric))
    print("by verification:", dict(Counter(r["verification"] for r in numeric)))
    print("all records by verification:", dict(Counter(r["verification"] for r in records)))
    seed = [r for r in numeric if r["accelerator_id"] in SEED_PLATFORMS]
    vendor = sum(r["verification"] == "vendor" for r in seed)
    print(f"seed platforms: {vendor}/{len(seed)} vendor = {vendor / max(len(seed), 1):.1%}")
    for a in SEED_PLATFORMS:
        mine = [r for r in seed if r["accelerator_id"] == a]
        v = sum(r["verification"] == "vendor" for r in mine)
        print(f"  {a}: {v}/{len(mine)}")


def main(argv: list[str]) -> None:
    if not argv or argv[0] not in {"fallback", "merge", "summary"}:
        sys.exit(__doc__)
    if argv[0] == "fallback":
        acc_header, accelerators = read(ACCELERATORS)
        records = read(SOURCES)[1] if SOURCES.exists() else []
        added = fallback(accelerators, records)
        merged = records + added
        merged.sort(key=_order([r["accelerator_id"] for r in accelerators]))
        write(SOURCES, HEADER, merged)
        print(f"added {len(added)} fallback records")
    elif argv[0] == "merge":
        merge([Path(p) for p in argv[1:]])
    else:
        summary()


if __name__ == "__main__":
    main(sys.argv[1:])
