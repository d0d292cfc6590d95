"""Epoch AI ML hardware CSV: both recorded snapshots, columns found by meaning, and small
fixtures of our own for the traps (inf tokens, unknown/missing/ambiguous columns)."""

from __future__ import annotations

import csv
import io
import random
from pathlib import Path

import pytest

from gpucost.catalog.records import EmptyPayloadError, ParseError, ParseResult, Payload
from gpucost.catalog.sources import epoch

RECORDED = "specs/epoch"
SNAPSHOTS = ("ml_hardware_snapshot_2025-12-10.csv", "ml_hardware_snapshot_2025-12-14.csv")


def _parse(content: bytes, name: str = "ml_hardware.csv") -> ParseResult:
    return epoch.parse(Payload(name=name, content=content, ext="csv"))


def _by_key(result: ParseResult) -> dict[tuple[str, str], tuple[float, str]]:
    return {(s.accelerator_name_raw, s.metric): (s.value, s.unit) for s in result.specs}


@pytest.mark.parametrize("snapshot", SNAPSHOTS)
def test_recorded_snapshots_parse(shared_data: Path, snapshot: str) -> None:
    result = _parse((shared_data / RECORDED / snapshot).read_bytes(), snapshot)
    assert result.stream == "ml_hardware"
    assert result.rejects == []  # every column of both snapshots is known
    got = _by_key(result)
    names = {s.accelerator_name_raw for s in result.specs}
    assert len(names) >= 165
    h100 = "NVIDIA H100 SXM5 80GB"
    assert got[(h100, "peak_bf16_dense_tflops")] == (9.894e14, "FLOP/s")
    assert got[(h100, "peak_fp16_dense_tflops")] == (9.894e14, "FLOP/s")
    assert got[(h100, "peak_fp16_vector_tflops")] == (1.338e14, "FLOP/s")  # non-tensor
    assert got[(h100, "memory_gb")] == (8e10, "byte")
    assert got[(h100, "memory_bw_tbps")] == (3.35e12, "byte/s")
    assert got[(h100, "tpp")] == (1.5832e16, "bit-OP/s")
    assert (h100, "peak_fp8_dense_tflops") not in got  # blank is not recorded, never 0
    # the known bad cell: B200 FP64 31 TFLOPS (vendor 37)
    assert got[("NVIDIA B200", "peak_fp64_dense_tflops")] == (3.104e13, "FLOP/s")


def test_snapshots_differ_in_int4_column_name(shared_data: Path) -> None:
    headers = [next(csv.reader(io.StringIO((shared_data / RECORDED / s).read_text("utf-8"))))
               for s in SNAPSHOTS]
    assert "INT4/FP4 performance (OP/s)" in headers[0]
    assert "INT4 performance (OP/s)" in headers[1]


def _rewrite(content: bytes, renames: dict[str, str], seed: int) -> bytes:
    rows = list(csv.reader(io.StringIO(content.decode("utf-8"), newline="")))
    header = rows[0]
    order = list(range(len(header)))
    random.Random(seed).shuffle(order)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([renames.get(header[i], header[i]) for i in order])
    for row in rows[1:]:
        writer.writerow([row[i] for i in order])
    return out.getvalue().encode("utf-8")


def test_shuffled_and_renamed_columns_give_the_same_observations(shared_data: Path) -> None:
    content = (shared_data / RECORDED / SNAPSHOTS[1]).read_bytes()
    original = _parse(content)
    renames = {
        "Memory size per board (Byte)": "Memory (bytes)",
        "Tensor-FP16/BF16 performance (FLOP/s)": "Tensor FP16/BF16 throughput (FLOP/s)",
    }
    changed = _rewrite(content, renames, seed=4)
    header = next(csv.reader(io.StringIO(changed.decode("utf-8"))))
    assert "Memory (bytes)" in header and header[0] != "Hardware name"
    moved = _parse(changed)

    def key(result: ParseResult) -> list[tuple[str, str, float, str]]:
        return sorted((s.accelerator_name_raw, s.metric, s.value, s.unit) for s in result.specs)

    assert key(moved) == key(original)
    assert len(moved.specs) == len(original.specs) > 1000
    # multi-line cells survived the rewrite (a real CSV reader on both sides)
    assert any("\n" in cell for row in csv.reader(io.StringIO(changed.decode("utf-8")))
               for cell in row)


TINY = (
    "Hardware name,Notes,Memory size per board (Byte),Memory bandwidth (byte/s),"
    "Tensor-FP16/BF16 performance (FLOP/s),Energy efficiency,TDP (W)\n"
    '"Chip A","line one\nline two",80000000000.0,3350000000000.0,inf,inf,700\n'
    "Chip B,,Infinity,NaN,1e+15,NaN,\n"
)


def test_inf_and_nan_tokens_are_not_figures() -> None:
    result = _parse(TINY.encode())
    # a token in a tracked column is refused with its reason, never read as a number
    assert sorted(r.detail for r in result.rejects) == [
        "Chip A peak_bf16_dense_tflops: 'inf'", "Chip A peak_fp16_dense_tflops: 'inf'",
        "Chip B memory_bw_tbps: 'NaN'", "Chip B memory_gb: 'Infinity'",
    ]
    assert _by_key(result) == {
        ("Chip A", "memory_gb"): (8e10, "byte"),
        ("Chip A", "memory_bw_tbps"): (3.35e12, "byte/s"),
        ("Chip A", "tdp_w"): (700.0, "W"),
        ("Chip B", "peak_fp16_dense_tflops"): (1e15, "FLOP/s"),
        ("Chip B", "peak_bf16_dense_tflops"): (1e15, "FLOP/s"),
    }


def test_unknown_column_is_recorded_not_silent() -> None:
    content = TINY.replace("TDP (W)\n", "TDP (W),Sparsity factor\n", 1)
    content = content.replace(",700\n", ",700,2\n").replace("NaN,\n", "NaN,,\n")
    result = _parse(content.encode())
    assert [(r.reason, r.raw_row) for r in result.rejects
            if r.reason != "not_a_positive_number"] == [
        ("unrecognised_column", "Sparsity factor")]
    assert len(result.specs) == 5


def test_layout_changes_fail_loudly() -> None:
    no_memory = TINY.replace("Memory size per board (Byte)", "Notes 2")
    with pytest.raises(ParseError, match="memory_size"):
        _parse(no_memory.encode())
    two_bandwidths = TINY.replace("TDP (W)", "Memory bandwidth (bytes/s)")
    with pytest.raises(ParseError, match="both look like memory_bw"):
        _parse(two_bandwidths.encode())
    other_unit = TINY.replace("Memory bandwidth (byte/s)", "Memory bandwidth (TB/s)")
    with pytest.raises(ParseError, match="TB/s"):
        _parse(other_unit.encode())
    with pytest.raises(EmptyPayloadError):
        _parse(b"")
    with pytest.raises(EmptyPayloadError):
        _parse(TINY.split("\n", 1)[0].encode() + b"\n")
