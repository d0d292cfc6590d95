"""AMD's spec tables in the ROCm documentation sources (GitHub ROCm/ROCm, MIT): vendor text.

Three files, each its own stream, named from the content (not the file name, so the same
document ingested under another name is the same stream): "gpu-arch-specs" for the
architecture table, else the accelerator series of the peak tables ("mi300", "mi250"):

* ``docs/reference/gpu-arch-specs.rst``: reStructuredText ``list-table`` of Instinct, Radeon
  PRO and Radeon parts -> `VRAM (GiB)` as memory_gb (unit "GiB": AMD prints the same figure
  as "192 GB" in datasheets; stg_rocm__specs documents the conversion);
* ``docs/conceptual/gpu-arch/mi300.md`` and ``mi250.md``: MyST ``{list-table}`` "Peak-
  performance capabilities of the MI300X ..." (Computation and Data Type, FLOPS/CLOCK/CU,
  Peak TFLOPS) and the sentence "The theoretical aggregated peak memory bandwidth of the GPU
  is 5.3 TB per second". The accelerator is named in the table caption. AMD lists dense
  peaks (its sparse figures are printed separately, not in these tables).

Rows -> metrics: Matrix FP64 -> peak_fp64_matrix, Vector FP64 -> peak_fp64, Vector FP32 ->
peak_fp32, Vector/Matrix TF32 -> peak_tf32, Matrix FP16 / BF16 / FP8 / INT8 -> the dense
tensor metrics. Matrix FP32 and Packed FP32 (CDNA2's 2x vector rate) have no column in the
catalog -> Reject("untracked_metric"). Names get the vendor prefix ("MI300X" -> "AMD MI300X").

Both markups are read by one list-table reader: a row starts at a line "*", each cell is a
line "- value" (an empty "-" is a blank cell); a table ends at the MyST fence or when the RST
block dedents. ``:header-rows: N`` marks the header rows. A file with no list-table ->
ParseError.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from gpucost.catalog.records import (
    EmptyPayloadError,
    ParseError,
    ParseResult,
    Payload,
    Reject,
)
from gpucost.catalog.sources.base import FetchContext, FetchPolicy, Part, Source
from gpucost.catalog.specs import SpecCollector, number

NAME = "rocm"
DEFAULT_URL = "https://raw.githubusercontent.com/ROCm/ROCm/develop/docs"
FILES: tuple[str, ...] = (
    "reference/gpu-arch-specs.rst",
    "conceptual/gpu-arch/mi300.md",
    "conceptual/gpu-arch/mi250.md",
)

_PEAK_ROWS = {
    "matrix fp64": "peak_fp64_matrix_dense_tflops",
    "vector fp64": "peak_fp64_dense_tflops",
    "vector fp32": "peak_fp32_dense_tflops",
    "vector tf32": "peak_tf32_dense_tflops",
    "matrix tf32": "peak_tf32_dense_tflops",
    "matrix fp16": "peak_fp16_dense_tflops",
    "matrix bf16": "peak_bf16_dense_tflops",
    "matrix fp8": "peak_fp8_dense_tflops",
    "matrix int8": "peak_int8_dense_tflops",
}
_ACCELERATOR = re.compile(r"\b(MI\d{2,3}[A-Z]*)\b")
_BANDWIDTH = re.compile(
    r"peak\s+memory\s+bandwidth\s+of\s+the\s+GPU\s+is\s+(?P<n>\d+(?:\.\d+)?)\s*TB\s*"
    r"(?:/\s*s(?:ec)?\b|per\s+second)", re.I)


def _parts(ctx: FetchContext) -> list[Part]:
    base = ctx.url().rstrip("/")
    return [Part(PurePosixPath(rel).stem, f"{base}/{rel}", PurePosixPath(rel).name,
                 PurePosixPath(rel).suffix.lstrip(".")) for rel in FILES]


@dataclass
class ListTable:
    caption: str
    header_rows: int
    rows: list[list[str]] = field(default_factory=list)

    @property
    def header(self) -> list[str]:
        return self.rows[0] if self.header_rows and self.rows else []

    @property
    def body(self) -> list[list[str]]:
        return self.rows[self.header_rows:]


_RST_START = re.compile(r"^(?P<indent>\s*)\.\.\s+list-table::\s*(?P<caption>.*)$")
_MYST_START = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|:{3,})\{list-table\}\s*(?P<caption>.*)$")
_OPTION = re.compile(r"^\s*:(?P<key>[a-z-]+):\s*(?P<value>.*)$")


def list_tables(text: str) -> list[ListTable]:
    """Every list-table of an RST or MyST document, with its caption and rows of cells."""
    lines = text.splitlines()
    tables: list[ListTable] = []
    i = 0
    while i < len(lines):
        rst, myst = _RST_START.match(lines[i]), _MYST_START.match(lines[i])
        if not (rst or myst):
            i += 1
            continue
        m = rst or myst
        assert m is not None
        indent = len(m.group("indent"))
        table = ListTable(caption=m.group("caption").strip(), header_rows=0)
        fence = myst.group("fence") if myst else None
        i += 1
        row: list[str] | None = None
        while i < len(lines):
            line = lines[i]
            stripped = line.strip()
            if fence is not None and stripped.startswith(fence):
                i += 1
                break
            if fence is None and stripped and len(line) - len(line.lstrip()) <= indent:
                break
            opt = _OPTION.match(line)
            if opt and row is None:
                if opt.group("key") == "header-rows":
                    table.header_rows = int(number(opt.group("value")) or 0)
            elif stripped == "*" or stripped.startswith("* "):
                row = []
                table.rows.append(row)
                rest = stripped[1:].strip()
                if rest.startswith("- ") or rest == "-":
                    row.append(rest[1:].strip())
            elif (stripped.startswith("- ") or stripped == "-") and row is not None:
                row.append(stripped[1:].strip())
            elif stripped and row is not None and row:
                row[-1] = f"{row[-1]} {stripped}".strip()  # a cell continued on the next line
            i += 1
        tables.append(table)
    return tables


def _vendor_name(model: str) -> str:
    model = " ".join(model.split())
    return model if model.upper().startswith("AMD") else f"AMD {model}"


def _column(header: list[str], *words: str) -> int | None:
    for idx, col in enumerate(header):
        low = col.lower()
        if all(w in low for w in words):
            return idx
    return None


def parse(payload: Payload) -> ParseResult:
    try:
        text = payload.content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(f"rocm {payload.name}: not UTF-8 text ({exc})") from exc
    tables = list_tables(text)
    if not tables:
        raise ParseError(f"rocm {payload.name}: no list-table in the document")
    result = ParseResult(stream=PurePosixPath(payload.name).stem or "rocm")
    out = SpecCollector(result)
    arch = False
    for table in tables:
        header = table.header
        model_col, vram_col = _column(header, "model"), _column(header, "vram")
        type_col = _column(header, "data type")
        peak_col = _column(header, "peak")
        if model_col is not None and vram_col is not None:
            _read_arch_table(table, model_col, vram_col, out)
            arch = True
        elif type_col is not None and peak_col is not None:
            _read_peak_table(table, type_col, peak_col, text, out)
    if not result.specs:
        raise EmptyPayloadError(f"rocm {payload.name}: {len(tables)} list-table(s), no figure")
    series = re.search(r"MI\d+", " ".join(sorted({s.accelerator_name_raw
                                                  for s in result.specs})), re.I)
    if arch:
        result.stream = "gpu-arch-specs"
    elif series:
        result.stream = series.group().lower()
    return result


def _read_arch_table(table: ListTable, model_col: int, vram_col: int,
                     out: SpecCollector) -> None:
    unit = "GiB" if "gib" in table.header[vram_col].lower() else "GB"
    for row in table.body:
        if len(row) <= max(model_col, vram_col):
            out.result.rejects.append(Reject("short_row", f"{len(row)} cells", " | ".join(row)))
            continue
        out.add(_vendor_name(row[model_col]), "memory_gb", row[vram_col], unit,
                " | ".join(row)[:2000])


def _read_peak_table(table: ListTable, type_col: int, peak_col: int, text: str,
                     out: SpecCollector) -> None:
    m = _ACCELERATOR.search(table.caption)
    if not m:
        out.result.rejects.append(Reject("accelerator_unknown",
                                         f"peak table without a part name: {table.caption!r}"))
        return
    name = _vendor_name(m.group(1))
    for row in table.body:
        if len(row) <= max(type_col, peak_col):
            out.result.rejects.append(Reject("short_row", f"{len(row)} cells", " | ".join(row)))
            continue
        kind = " ".join(row[type_col].lower().split())
        metric = _PEAK_ROWS.get(kind)
        raw = " | ".join(row)[:2000]
        if metric is None:
            out.result.rejects.append(Reject("untracked_metric", f"{name}: {row[type_col]}", raw))
            continue
        out.add(name, metric, row[peak_col], "TFLOP/s", raw)
    bw = _BANDWIDTH.search(text)
    if bw:
        out.add(name, "memory_bw_tbps", bw.group("n"), "TB/s", bw.group(0))


SOURCE = Source(
    name=NAME, kind="specs", default_url=DEFAULT_URL, parse=parse, parts=_parts,
    policy=FetchPolicy(min_interval_s=1.0),  # one request per 1.0 s to the host
    description="AMD ROCm documentation: Instinct GPU specification tables",
)
