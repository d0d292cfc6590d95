"""Epoch AI "Machine Learning Hardware" CSV (https://epoch.ai/data/machine-learning-hardware).

One row per accelerator, SI base units (FLOP/s, OP/s, byte, byte/s, W, mm^2). Licence CC BY 4.0
("Epoch AI, 'Data on Machine Learning Hardware'"). Tensor figures are without sparsity (Epoch's
notes), so they map to the dense metrics.

Columns are found by MEANING, not position or exact spelling: snapshots reorder columns and
rename them (`INT4/FP4 performance (OP/s)` vs `INT4 performance (OP/s)`, `Memory size per board
(Byte)` vs `Memory (bytes)`). Each header is normalised to lowercase words and matched against
keyword rules (_RULES); the unit comes from the header's parenthesis ("(byte/s)") or, when a
renamed header has none, from Epoch's documented SI unit of that quantity. Rules:

* required: the hardware name, the tensor FP16/BF16 column, memory size and memory bandwidth;
  a snapshot without one of them -> ParseError (the layout changed, do not guess);
* a header that matches two rules, or two headers that match one rule -> ParseError;
* Epoch's own `Total processing performance (bit-OP/s)` is kept as metric tpp (a cross-check
  of the TPP computed in SQL); other known columns that carry no tracked spec (notes, price,
  clocks, Epoch's other derived columns such as `Price-performance`) are read past; a column no rule
  knows is recorded as Reject("unrecognised_column") so a new column is visible, never silent;
* `INT4/FP4` (one figure for two formats) is not tracked: ambiguous.

Epoch prints one tensor figure for "FP16/BF16": it is recorded under both
peak_fp16_dense_tflops and peak_bf16_dense_tflops (the reconciliation never lets Epoch fill a
curated throughput cell, so a part without BF16 never gets Epoch's figure as its BF16 value).
Epoch's `FP16 (half precision)` column is the non-tensor rate -> peak_fp16_vector_tflops.

Values: a real CSV reader (48 rows hold quoted multi-line cells); `inf`, `Infinity`, `NaN`
and blanks are not figures (blank = not recorded, never 0). Stream "ml_hardware".
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable

from gpucost.catalog.records import EmptyPayloadError, ParseError, ParseResult, Payload, Reject
from gpucost.catalog.sources.base import Source
from gpucost.catalog.specs import SpecCollector

NAME = "epoch"
DEFAULT_URL = "https://epoch.ai/data/ml_hardware.csv"
STREAM = "ml_hardware"


def _words(header: str) -> tuple[str, set[str]]:
    text = re.sub(r"[^a-z0-9]+", " ", header.lower()).strip()
    return text, set(text.split())


Rule = Callable[[str, set[str]], bool]


def _has(*words: str) -> Rule:
    return lambda text, w: all(x in w for x in words)


def _tensor(text: str, w: set[str]) -> bool:
    return "tensor" in w and ("fp16" in w or "bf16" in w)


def _fp16_vector(text: str, w: set[str]) -> bool:
    return ("fp16" in w or "half" in w) and "tensor" not in w and "bf16" not in w


def _fp32(text: str, w: set[str]) -> bool:
    return ("fp32" in w or "single" in w) and "tensor" not in w


def _fp64(text: str, w: set[str]) -> bool:
    return ("fp64" in w or "double" in w) and "tensor" not in w and "matrix" not in w


def _tf32(text: str, w: set[str]) -> bool:
    return "tf32" in w or "tensorfloat" in text.replace(" ", "")


def _memory_size(text: str, w: set[str]) -> bool:
    return ("memory" in w or "vram" in w or "hbm" in w) and not (
        w & {"bandwidth", "clock", "bus", "type", "frequency"})


def _memory_bw(text: str, w: set[str]) -> bool:
    return "memory" in w and "bandwidth" in w


def _name(text: str, w: set[str]) -> bool:
    return text in {"hardware name", "name", "hardware", "accelerator", "chip", "model",
                    "accelerator name", "chip name", "hardware model"}


# field -> (metric or None for the name, rule, default unit when the header has none)
_RULES: dict[str, tuple[str | None, Rule, str]] = {
    "name": (None, _name, ""),
    "tensor_fp16_bf16": ("peak_fp16_dense_tflops", _tensor, "FLOP/s"),
    "tf32": ("peak_tf32_dense_tflops", _tf32, "FLOP/s"),
    "fp64": ("peak_fp64_dense_tflops", _fp64, "FLOP/s"),
    "fp32": ("peak_fp32_dense_tflops", _fp32, "FLOP/s"),
    "fp16_vector": ("peak_fp16_vector_tflops", _fp16_vector, "FLOP/s"),
    "fp8": ("peak_fp8_dense_tflops", lambda t, w: "fp8" in w, "FLOP/s"),
    "fp4": ("peak_fp4_dense_tflops", lambda t, w: "fp4" in w and "int4" not in w, "FLOP/s"),
    "int8": ("peak_int8_dense_tflops", lambda t, w: "int8" in w, "OP/s"),
    "memory_size": ("memory_gb", _memory_size, "byte"),
    "memory_bw": ("memory_bw_tbps", _memory_bw, "byte/s"),
    "intranode_bw": ("interconnect_bw_gbps",
                     lambda t, w: "intranode" in w or ("intra" in w and "node" in w), "byte/s"),
    "die_area": ("die_area_mm2", lambda t, w: "die" in w and bool(w & {"size", "area"}), "mm2"),
    "tdp": ("tdp_w", lambda t, w: "tdp" in w or ("thermal" in w and "power" in w), "W"),
    "tpp": ("tpp", _has("total", "processing", "performance"), "bit-OP/s"),
}
_REQUIRED = ("name", "tensor_fp16_bf16", "memory_size", "memory_bw")

# columns Epoch publishes that carry no tracked spec (or are Epoch's own derivations)
_KNOWN_UNTRACKED: tuple[Rule, ...] = (
    _has("manufacturer"), _has("vendor"), _has("type"), _has("notes"), _has("release", "date"),
    _has("price"), _has("int16"), _has("int4"), _has("internode"), _has("clock"),
    _has("memory", "bus"), _has("tensor", "cores"), _has("process"), _has("foundry"),
    _has("transistors"), _has("link"), _has("source"), _has("ml", "models"),
    _has("last", "modified"), _has("max", "performance"), _has("energy", "efficiency"),
    _has("ml", "op", "s"),
)

# unit text in a header's parenthesis -> the unit recorded with the value
_UNITS = {
    "flop/s": "FLOP/s", "flops": "FLOP/s", "op/s": "OP/s", "ops": "OP/s",
    "byte": "byte", "bytes": "byte", "b": "byte",
    "byte/s": "byte/s", "bytes/s": "byte/s", "b/s": "byte/s",
    "w": "W", "watts": "W", "watt": "W",
    "mm^2": "mm2", "mm2": "mm2", "mm²": "mm2",
    "bit-op/s": "bit-OP/s", "bit op/s": "bit-OP/s",
}
# the units this source's staging model converts (stg_epoch__specs)
_ALLOWED_UNITS = {
    "peak": {"FLOP/s", "OP/s"}, "memory_gb": {"byte"}, "memory_bw_tbps": {"byte/s"},
    "interconnect_bw_gbps": {"byte/s"}, "die_area_mm2": {"mm2"}, "tdp_w": {"W"},
    "tpp": {"bit-OP/s"},
}


def _unit(header: str, metric: str, default: str) -> str:
    m = re.search(r"\(([^()]*)\)\s*$", header.strip())
    unit = _UNITS.get(m.group(1).strip().lower(), m.group(1).strip()) if m else default
    allowed = _ALLOWED_UNITS["peak" if metric.startswith("peak_") else metric]
    if unit not in allowed:
        raise ParseError(f"epoch: column {header!r} is in {unit!r}, expected one of "
                         f"{sorted(allowed)}")
    return unit


def map_columns(header: list[str]) -> tuple[dict[str, int], list[str]]:
    """{field: column index} by meaning, and the headers no rule knows."""
    found: dict[str, int] = {}
    unknown: list[str] = []
    for idx, col in enumerate(header):
        text, words = _words(col)
        if not text:
            continue
        hits = [f for f, (_, rule, _) in _RULES.items() if rule(text, words)]
        if len(hits) > 1:
            raise ParseError(f"epoch: column {col!r} matches several fields {hits}")
        if hits:
            field = hits[0]
            if field in found:
                raise ParseError(f"epoch: columns {header[found[field]]!r} and {col!r} "
                                 f"both look like {field}")
            found[field] = idx
        elif not any(rule(text, words) for rule in _KNOWN_UNTRACKED):
            unknown.append(col)
    missing = [f for f in _REQUIRED if f not in found]
    if missing:
        raise ParseError(f"epoch: no column found for {missing} (header: "
                         f"{', '.join(header)[:300]})")
    return found, unknown


def parse(payload: Payload) -> ParseResult:
    try:
        text = payload.content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParseError(f"epoch {payload.name}: not UTF-8 text ({exc})") from exc
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as exc:
        raise ParseError(f"epoch {payload.name}: malformed CSV ({exc})") from exc
    if not rows or not any(c.strip() for c in rows[0]):
        raise EmptyPayloadError(f"epoch {payload.name}: empty file, not even a header")
    header = [h.strip() for h in rows[0]]
    found, unknown = map_columns(header)
    result = ParseResult(stream=STREAM)
    for col in unknown:
        result.rejects.append(Reject("unrecognised_column", f"epoch column {col!r} not mapped",
                                     col))
    units = {field: _unit(header[idx], metric, default)
             for field, idx in found.items()
             for metric, _, default in [_RULES[field]] if metric}
    out = SpecCollector(result)
    for line in rows[1:]:
        if not any(c.strip() for c in line):
            continue
        if len(line) != len(header):
            result.rejects.append(Reject("ragged_row", f"{len(line)} cells, header has "
                                         f"{len(header)}", ",".join(line)[:2000]))
            continue
        name = line[found["name"]]
        raw = ",".join(c.replace("\n", " ") for c in line)[:2000]
        for field, idx in found.items():
            metric = _RULES[field][0]
            if metric is None:
                continue
            out.add(name, metric, line[idx], units[field], raw)
            if field == "tensor_fp16_bf16":
                out.add(name, "peak_bf16_dense_tflops", line[idx], units[field], raw)
    if not result.specs:
        raise EmptyPayloadError(f"epoch {payload.name}: no figure in {len(rows) - 1} rows")
    return result


SOURCE = Source(
    name=NAME, kind="specs", default_url=DEFAULT_URL, parse=parse,
    payload_name="ml_hardware.csv", ext="csv",
    description="Epoch AI's ML hardware dataset (CSV)",
)
