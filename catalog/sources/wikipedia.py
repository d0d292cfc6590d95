"""Wikipedia's GPU list tables (Nvidia, AMD, Intel) as flattened by voidful/gpu-info-api.

The project's weekly bot scrapes https://en.wikipedia.org/wiki/List_of_Nvidia_graphics_processing_units
(and the AMD / Intel pages) with pandas.read_html and publishes one JSON object (branch
`gpu-data`, `gpu.json`): keys like ``NVIDIA_nan_64``, each value a flat dict of flattened
two-row headers -> cell (292 distinct column names). Content CC BY-SA 4.0.

What is read (everything else is left alone):

* name: the first of `Model name`, `Model`, `Model (Code name)`, ... that is set; a trailing
  "(codename)" is dropped from the code-name columns; the vendor is prefixed when missing
  ("GeForce RTX 4090" -> "NVIDIA GeForce RTX 4090"). Header rows that leaked into the data
  (the name cell equals a column title) -> Reject("header_row");
* memory size (`Memory Size (GB|GiB|MiB|MB)`), memory bandwidth (`... Bandwidth (GB/s)`),
  TDP (`TDP (W)`, `TDP (Watts)`, `TBP`), die size (`Die size (mm)` is mm², the ² lost);
* FP32 / FP64 vector rates (`Processing power (GFLOPS|TFLOPS) Single|Double precision ...`);
* tensor FP16: the data-center column `Half precision Tensor Core FP32 Accumulate` (dense)
  and the consumer column `Tensor compute (FP16) (2:1 sparse)` printed as
  "dense (sparse)" pairs ("292 (585) 330 (661)": base and boost): the last dense figure is
  kept, and only when every sparse figure is twice its dense one. A figure printed sparse only
  is never read as dense (Reject("sparse_only")). `Half precision` columns are NOT read: they
  mean vector FP16 in some tables and matrix FP16 in others.

Cells are strings mixing units and alternatives. A cell is read only when it holds one
figure ("80", "750 W", "181 mm"); a throughput cell may hold two ("73.1 82.6" = base and
boost, the larger is kept). Alternatives ("40 or 80"), ranges ("80-150"), several variants
("448.0 576.0" bandwidth) -> Reject("ambiguous_cell"); "nan", "?", "TBD", "Unknown" are
blanks. Values keep the table's unit; stg_wikipedia__specs converts. Stream "gpu_info_api".
An object without records -> EmptyPayloadError; records none of which has a model-name column
(another layout) -> ParseError.
A name shared by several records (variants the name column does not tell apart) keeps a
metric only when every record states the same value (Reject("conflicting_duplicates")).
"""

from __future__ import annotations

import json
import re

from gpucost.catalog.records import EmptyPayloadError, ParseError, ParseResult, Payload, Reject
from gpucost.catalog.sources.base import Source
from gpucost.catalog.specs import SpecCollector, number

NAME = "wikipedia"
DEFAULT_URL = "https://raw.githubusercontent.com/voidful/gpu-info-api/gpu-data/gpu.json"
STREAM = "gpu_info_api"

_NAME_COLUMNS = (
    "Model name", "Model", "Model (Code name)", "Model (Codename)", "Model (codename)",
    "Branding and Model", "Model name (Architecture)",
)
_CODENAME_COLUMNS = frozenset({"Model (Code name)", "Model (Codename)", "Model (codename)",
                               "Model name (Architecture)"})
_BLANKS = frozenset({"", "nan", "?", "tbd", "unknown", "un\xadknown", "n/a", "na", "-", "—",
                     "–", "none"})

# metric -> [(column, unit of its values, kind)]; kind: "one" = one figure; "rate" = one
# figure or base+boost; "sparse_pairs" = "dense (sparse)" pairs
_COLUMNS: dict[str, list[tuple[str, str, str]]] = {
    "memory_gb": [
        ("Memory Size (GB)", "GB", "one"), ("Memory Size (GiB)", "GiB", "one"),
        ("Memory configuration Size (GiB)", "GiB", "one"), ("Memory Size (MiB)", "MiB", "one"),
        ("Memory configuration Size (MiB)", "MiB", "one"), ("Memory Size (MB)", "MB", "one"),
    ],
    "memory_bw_tbps": [
        ("Memory Bandwidth (GB/s)", "GB/s", "one"),
        ("Memory configuration Bandwidth (GB/s)", "GB/s", "one"),
    ],
    "tdp_w": [
        ("TDP (W)", "W", "one"), ("TDP (Watts)", "W", "one"), ("TBP", "W", "one"),
        ("TBP (W)", "W", "one"),
    ],
    "die_area_mm2": [("Die size (mm)", "mm2", "one"), ("Die size", "mm2", "one")],
    "peak_fp32_dense_tflops": [
        ("Processing power (TFLOPS) Single precision (MAD or FMA)", "TFLOP/s", "rate"),
        ("Processing power (TFLOPS) Single precision", "TFLOP/s", "rate"),
        ("Processing power (TFLOPS) Single", "TFLOP/s", "rate"),
        ("Processing power (GFLOPS) Single precision", "GFLOP/s", "rate"),
        ("Processing power (GFLOPS) Single", "GFLOP/s", "rate"),
    ],
    "peak_fp64_dense_tflops": [
        ("Processing power (TFLOPS) Double precision (FMA)", "TFLOP/s", "rate"),
        ("Processing power (TFLOPS) Double precision", "TFLOP/s", "rate"),
        ("Processing power (TFLOPS) Double", "TFLOP/s", "rate"),
        ("Processing power (GFLOPS) Double precision", "GFLOP/s", "rate"),
        ("Processing power (GFLOPS) Double", "GFLOP/s", "rate"),
    ],
    "peak_fp16_dense_tflops": [
        ("Processing power (TFLOPS) Half precision Tensor Core FP32 Accumulate", "TFLOP/s",
         "one"),
        ("Processing power (TFLOPS) Tensor compute (FP16) (2:1 sparse)", "TFLOP/s",
         "sparse_pairs"),
        ("Processing power (TFLOPS) Tensor compute FP16 (2:1 sparse)", "TFLOP/s",
         "sparse_pairs"),
        ("Processing power (TFLOPS) Tensor compute (FP16) (sparse)", "TFLOP/s", "sparse_only"),
    ],
}
_UNIT_WORDS = {"W": ("w", "watts"), "mm2": ("mm", "mm2", "mm²"), "GB": ("gb",),
               "GiB": ("gib", "gb"), "GB/s": ("gb/s",)}
_FIGURE = r"\d+(?:\.\d+)?"


def _cell(value: object) -> str:
    return " ".join(str(value).replace(",", "").split()) if value is not None else ""


def _is_blank(text: str) -> bool:
    return text.lower() in _BLANKS


def read_cell(value: object, unit: str, kind: str) -> tuple[float | None, str]:
    """(figure, "") or (None, reason) for one cell of a column of `kind` (see _COLUMNS)."""
    text = _cell(value)
    if _is_blank(text):
        return None, ""
    if isinstance(value, int | float) and not isinstance(value, bool):
        fig = number(value)
        if kind == "sparse_only":
            return None, "sparse_only"
        if kind == "sparse_pairs":
            return None, "ambiguous_cell"
        return fig, "" if fig is not None else "not_a_number"
    if kind == "sparse_only":
        return None, "sparse_only"
    if kind == "sparse_pairs":
        pairs = re.findall(rf"({_FIGURE})\s*\(({_FIGURE})\)", text)
        rest = re.sub(rf"{_FIGURE}\s*\({_FIGURE}\)", "", text).strip()
        if not pairs or rest:
            return None, "ambiguous_cell"
        if any(abs(float(s) - 2 * float(d)) > 0.02 * 2 * float(d) for d, s in pairs):
            return None, "ambiguous_cell"
        return float(pairs[-1][0]), ""
    m = re.fullmatch(rf"({_FIGURE})\s*([a-z²/0-9]*)", text.lower())
    if m and (not m.group(2) or m.group(2) in _UNIT_WORDS.get(unit, ())):
        return float(m.group(1)), ""
    if kind == "rate":
        m2 = re.fullmatch(rf"({_FIGURE}) ({_FIGURE})", text)
        if m2 and float(m2.group(2)) >= float(m2.group(1)):
            return float(m2.group(2)), ""
    return None, "ambiguous_cell"


def _name(record: dict[str, object]) -> tuple[str, str]:
    """(name with vendor, the column it came from) or ("", "")."""
    for col in _NAME_COLUMNS:
        text = " ".join(str(record.get(col) or "").split())
        if _is_blank(text):
            continue
        if col in _CODENAME_COLUMNS:
            text = re.sub(r"\s*\([^()]*\)\s*$", "", text)
        vendor = " ".join(str(record.get("Vendor") or "").split())
        if vendor and not _is_blank(vendor) and not text.lower().startswith(vendor.lower()):
            text = f"{vendor} {text}"
        return text, col
    return "", ""


def _is_header_row(record: dict[str, object]) -> bool:
    """A table header leaked in as a record: cells repeat their own column titles."""
    echoes = sum(1 for k, v in record.items() if isinstance(v, str) and v and v in k)
    return echoes >= 3


def parse(payload: Payload) -> ParseResult:
    try:
        data = json.loads(payload.content)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ParseError(f"wikipedia {payload.name}: truncated or invalid JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise ParseError(f"wikipedia {payload.name}: expected an object of GPU records")
    if not data:
        raise EmptyPayloadError(f"wikipedia {payload.name}: an object without a GPU record")
    if not any(isinstance(r, dict) and any(c in r for c in _NAME_COLUMNS)
               for r in data.values()):
        raise ParseError(f"wikipedia {payload.name}: no record has a model-name column "
                         f"({', '.join(_NAME_COLUMNS[:3])}, ...): not the gpu-info-api layout")
    result = ParseResult(stream=STREAM)
    out = SpecCollector(result, drop_conflicts=True)
    for key, record in data.items():
        if not isinstance(record, dict):
            result.rejects.append(Reject("not_a_record", str(key), str(record)[:2000]))
            continue
        raw = json.dumps({k: v for k, v in record.items() if _cell(v) != "nan"},
                         ensure_ascii=False, default=str)[:2000]
        if _is_header_row(record):
            result.rejects.append(Reject("header_row", str(key), raw))
            continue
        name, _ = _name(record)
        if not name:
            result.rejects.append(Reject("missing_name", str(key), raw))
            continue
        for metric, columns in _COLUMNS.items():
            for col, unit, kind in columns:
                if col not in record:
                    continue
                value, reason = read_cell(record[col], unit, kind)
                if reason:
                    result.rejects.append(Reject(
                        reason, f"{name} [{key}] {col}: {_cell(record[col])[:80]!r}", raw))
                elif value is not None and out.add(name, metric, value, unit, raw):
                    break  # the first column that gives the metric wins
    out.finish()
    if not result.specs:
        raise EmptyPayloadError(f"wikipedia {payload.name}: no figure in {len(data)} records")
    return result


SOURCE = Source(
    name=NAME, kind="specs", default_url=DEFAULT_URL, parse=parse,
    payload_name="gpu.json", ext="json",
    description="Wikipedia's GPU tables as JSON (voidful/gpu-info-api)",
)
