"""The spec vocabulary shared by the spec sources (KIND = "specs"), and their small helpers.

A spec parser emits SpecObservation(accelerator_name_raw, metric, value, unit):

* `metric` is one of SPEC_METRICS: the quantity, named like the column of the `accelerators`
  mart it is compared with (peak_bf16_dense_tflops, memory_gb, memory_bw_tbps, ...), plus a few
  quantities kept only as raw observations (peak_fp16_vector_tflops: the non-tensor shader
  rate TechPowerUp and Epoch print; accelerators_per_system: MLPerf's per-system count; tpp:
  Epoch's own "Total processing performance", to cross-check the TPP we compute in SQL).
* `unit` is the unit the value is in AS THE SOURCE STATES IT (Epoch: "FLOP/s", "byte/s",
  "byte"; TechPowerUp: "GFLOP/s", "GB/s"; ...). The staging model of each source
  (models/staging/stg_<source>__specs.sql) converts it to the unit the metric name carries;
  parsers do not convert, so the conversion is written once, in SQL, next to its reason.

Parsers never guess: a figure that is not a finite positive number is a Reject, and so is a
row without a name. Throughput figures are dense (no 2:4 sparsity) by construction: a parser
only maps a column or row to a peak_*_dense_* metric when the source says it is dense (or
does not print sparse figures at all); sparse-only figures are rejected with their reason.
"""

from __future__ import annotations

import math
import re

from gpucost.catalog.records import ParseResult, Reject, SpecObservation

# metric -> the unit its name carries (what stg_<source>__specs converts into)
SPEC_METRICS: dict[str, str] = {
    "memory_gb": "GB",
    "memory_bw_tbps": "TB/s",
    "interconnect_bw_gbps": "GB/s",
    "tdp_w": "W",
    "die_area_mm2": "mm2",
    "peak_fp64_dense_tflops": "TFLOP/s",
    "peak_fp64_matrix_dense_tflops": "TFLOP/s",
    "peak_fp32_dense_tflops": "TFLOP/s",
    "peak_tf32_dense_tflops": "TFLOP/s",
    "peak_bf16_dense_tflops": "TFLOP/s",
    "peak_fp16_dense_tflops": "TFLOP/s",
    "peak_fp8_dense_tflops": "TFLOP/s",
    "peak_int8_dense_tflops": "TOP/s",
    "peak_fp4_dense_tflops": "TFLOP/s",
    # raw-only quantities (not columns of the accelerators mart)
    "peak_fp16_vector_tflops": "TFLOP/s",
    "accelerators_per_system": "count",
    "tpp": "TOP/s x bit",  # a source's own export-control TPP (Epoch), for cross-checking ours
}

_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][-+]?\d+)?")
_NON_FINITE = frozenset({"inf", "+inf", "-inf", "infinity", "+infinity", "-infinity", "nan"})


def number(text: object) -> float | None:
    """A finite float from a cell ("1,979", "9.7", "1e+16", 80), else None.

    "inf", "Infinity", "NaN", "", "N/A", "TODO" and anything that is not one number -> None.
    """
    if text is None or isinstance(text, bool):
        return None
    if isinstance(text, int | float):
        value = float(text)
        return value if math.isfinite(value) else None
    s = str(text).strip()
    if not s or s.lower() in _NON_FINITE:
        return None
    m = _NUMBER.fullmatch(s)
    if not m or not any(c.isdigit() for c in s):
        return None
    value = float(s.replace(",", ""))
    return value if math.isfinite(value) else None


def leading_number(text: object) -> float | None:
    """The first number in a free-text cell ("80 GB" -> 80, "1,979 TFLOPS" -> 1979)."""
    if text is None:
        return None
    m = re.search(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?", str(text))
    return number(m.group(0)) if m else None


class SpecCollector:
    """Accepts spec observations into a ParseResult, refusing what is not a usable figure.

    * the metric must be in SPEC_METRICS (a parser bug otherwise: ValueError);
    * the value must be a finite number > 0, else Reject("not_a_positive_number");
    * the same (name, metric) twice with the same value is kept once; with another value
      the first is kept and the second becomes Reject("duplicate_metric"), unless the
      collector was made with `drop_conflicts=True`: then `finish()` drops every figure of a
      (name, metric) that was stated with different values (a name shared by several
      variants, e.g. Wikipedia rows) and records Reject("conflicting_duplicates").
    """

    def __init__(self, result: ParseResult, *, drop_conflicts: bool = False) -> None:
        self.result = result
        self.drop_conflicts = drop_conflicts
        self._seen: dict[tuple[str, str], float] = {}
        self._conflicts: dict[tuple[str, str], set[float]] = {}

    def add(self, name: str, metric: str, value: object, unit: str, raw: str = "") -> bool:
        if metric not in SPEC_METRICS:
            raise ValueError(f"unknown spec metric {metric!r}")
        name = " ".join(str(name or "").split())
        if not name:
            self.result.rejects.append(Reject("missing_name", f"{metric} without a name", raw))
            return False
        figure = number(value)
        if figure is None or figure <= 0:
            if str(value or "").strip():
                self.result.rejects.append(Reject(
                    "not_a_positive_number", f"{name} {metric}: {str(value)[:80]!r}", raw))
            return False
        key = (name, metric)
        held = self._seen.get(key)
        if held is not None:
            if held != figure and self.drop_conflicts:
                self._conflicts.setdefault(key, {held}).add(figure)
            elif held != figure:
                self.result.rejects.append(Reject(
                    "duplicate_metric", f"{name} {metric}: {figure:g} dropped, {held:g} kept",
                    raw))
            return False
        self._seen[key] = figure
        self.result.specs.append(SpecObservation(name, metric, figure, unit))
        return True

    def finish(self) -> None:
        """Drop the (name, metric) figures stated with different values (drop_conflicts)."""
        if not self._conflicts:
            return
        self.result.specs = [s for s in self.result.specs
                             if (s.accelerator_name_raw, s.metric) not in self._conflicts]
        for (name, metric), values in sorted(self._conflicts.items()):
            shown = ", ".join(f"{v:g}" for v in sorted(values))
            self.result.rejects.append(Reject(
                "conflicting_duplicates", f"{name} {metric}: several values ({shown})"))
        self._conflicts.clear()


