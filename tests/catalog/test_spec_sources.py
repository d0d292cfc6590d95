"""Per-cell provenance of the accelerator catalog (issue 14), read with the stdlib csv module.

catalog/accelerator_spec_sources.csv holds one record per spec cell of accelerators.csv
(accelerator_id, metric): the value, where it was read (source_url, document) and how far it
was verified (vendor, secondary, derived, unpublished). These tests hold the two files to each
other and assert hand-checked figures against the vendors' own text.
"""

from __future__ import annotations

import csv
import importlib.util
import re
from collections import Counter
from datetime import date
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CATALOG = ROOT / "catalog"


def _script():  # scripts/spec_sources.py: the vocabulary of the provenance records
    spec = importlib.util.spec_from_file_location("spec_sources", ROOT / "scripts" /
                                                  "spec_sources.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_SPEC = _script()
HEADER, NUMERIC, DATES = _SPEC.HEADER, _SPEC.NUMERIC, _SPEC.DATES
LEVELS, SEED_PLATFORMS = _SPEC.LEVELS, _SPEC.SEED_PLATFORMS
URL = re.compile(r"^https?://\S+$")
CITED_SPARSE = re.compile(r"sparse[^0-9/=]*([0-9][0-9,]*(?:\.[0-9]+)?)\s*/\s*2")


def _read(name: str) -> tuple[list[str], list[dict[str, str]]]:
    with (CATALOG / name).open(newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh)
        header = next(reader)
        return header, [dict(zip(header, row, strict=True)) for row in reader]


def _same(a: str, b: str) -> bool:
    a, b = a.strip(), b.strip()
    if not a or not b:
        return a == b
    try:
        return abs(float(a) - float(b)) <= 1e-9 * max(abs(float(a)), 1.0)
    except ValueError:
        return a == b


@pytest.fixture(scope="module")
def accelerators() -> dict[str, dict[str, str]]:
    return {row["accelerator_id"]: row for row in _read("accelerators.csv")[1]}


@pytest.fixture(scope="module")
def records() -> list[dict[str, str]]:
    header, rows = _read("accelerator_spec_sources.csv")
    assert header == HEADER
    return rows


@pytest.fixture(scope="module")
def provenance(records: list[dict[str, str]]) -> dict[tuple[str, str], dict[str, str]]:
    return {(r["accelerator_id"], r["metric"]): r for r in records}


def test_one_record_per_cell_and_only_known_cells(
    records: list[dict[str, str]], accelerators: dict[str, dict[str, str]]
) -> None:
    keys = Counter((r["accelerator_id"], r["metric"]) for r in records)
    assert not [k for k, n in keys.items() if n > 1]
    for accelerator_id, metric in keys:
        assert accelerator_id in accelerators, accelerator_id
        assert metric in NUMERIC + DATES, metric


def test_every_filled_numeric_cell_has_its_provenance(
    accelerators: dict[str, dict[str, str]],
    provenance: dict[tuple[str, str], dict[str, str]],
) -> None:
    missing = [(a, m) for a, row in accelerators.items() for m in NUMERIC
               if row[m].strip() and (a, m) not in provenance]
    assert not missing, missing[:10]


def test_provenance_value_is_the_cell(
    records: list[dict[str, str]], accelerators: dict[str, dict[str, str]]
) -> None:
    differ = [(r["accelerator_id"], r["metric"], r["value"], cell)
              for r in records
              if not _same(r["value"], cell := accelerators[r["accelerator_id"]][r["metric"]])]
    assert not differ, differ[:10]


def test_records_are_well_formed(records: list[dict[str, str]]) -> None:
    for r in records:
        where = (r["accelerator_id"], r["metric"])
        assert r["verification"] in LEVELS, where
        assert (r["verification"] == "unpublished") == (not r["value"].strip()), where
        if r["verification"] != "unpublished":
            assert URL.match(r["source_url"]), where
            assert r["document"].strip(), where
        else:
            assert r["note"].strip(), where  # says why the cell is empty
        if r["verification"] == "derived":
            assert "=" in r["note"], where  # the rule
        if r["metric"] in DATES and r["value"]:
            date.fromisoformat(r["value"])
        elif r["value"]:
            assert float(r["value"]) > 0, where


def test_derived_dense_cells_are_half_the_sparse_figure_they_cite(
    records: list[dict[str, str]],
) -> None:
    checked = 0
    for r in records:
        if r["verification"] != "derived" or not r["metric"].startswith("peak_"):
            continue
        m = CITED_SPARSE.search(r["note"])
        if m:
            checked += 1
            half = float(m.group(1).replace(",", "")) / 2
            assert abs(float(r["value"]) - half) <= 0.01 * half, (r["accelerator_id"], r["metric"])
    assert checked >= 20


# ------------------------------------------------------------------ hand-checked figures


def test_b200_tf32_is_half_the_printed_sparse_figure(
    accelerators: dict[str, dict[str, str]],
    provenance: dict[tuple[str, str], dict[str, str]],
) -> None:
    # HGX B200 table: TF32 Tensor Core 2.2 PFLOPS with sparsity -> 1100 dense (not 2.25 / 2)
    assert float(accelerators["nvidia-b200-sxm-180gb"]["peak_tf32_dense_tflops"]) == 1100
    record = provenance[("nvidia-b200-sxm-180gb", "peak_tf32_dense_tflops")]
    assert record["verification"] == "derived" and "2200 / 2" in record["note"]
    # the vendor's own table for the rest of the row
    b200 = accelerators["nvidia-b200-sxm-180gb"]
    assert (float(b200["memory_gb"]), float(b200["memory_bw_tbps"]), float(b200["tdp_w"])) == (
        180, 7.7, 1000)
    assert float(b200["peak_fp64_dense_tflops"]) == 37
    assert float(b200["peak_fp32_dense_tflops"]) == 75


@pytest.mark.parametrize(("accelerator_id", "link"), [
    ("nvidia-h100-pcie-80gb", "NVLink 4 bridge"),
    ("nvidia-h100-nvl-94gb", "NVLink 4 bridge"),
    ("nvidia-a100-pcie-40gb", "NVLink 3 bridge"),
    ("nvidia-a100-pcie-80gb", "NVLink 3 bridge"),
])
def test_pcie_cards_with_an_nvlink_bridge_carry_the_bridge(
    accelerators: dict[str, dict[str, str]],
    provenance: dict[tuple[str, str], dict[str, str]],
    accelerator_id: str, link: str,
) -> None:
    # one rule for all: the fastest scale-up link the part supports (600 GB/s bridge)
    row = accelerators[accelerator_id]
    assert float(row["interconnect_bw_gbps"]) == 600
    assert row["interconnect_link"] == link
    assert provenance[(accelerator_id, "interconnect_bw_gbps")]["verification"] == "vendor"


def test_hopper_and_ampere_figures_read_in_vendor_text(
    accelerators: dict[str, dict[str, str]],
    provenance: dict[tuple[str, str], dict[str, str]],
) -> None:
    # H100 whitepaper Table 3: PCIe 25.6 / 51.2 / 51.2, dense BF16 756; product brief: 350 W
    pcie = accelerators["nvidia-h100-pcie-80gb"]
    assert [float(pcie[c]) for c in ("peak_fp64_dense_tflops", "peak_fp64_matrix_dense_tflops",
                                     "peak_fp32_dense_tflops", "peak_bf16_dense_tflops",
                                     "tdp_w")] == [25.6, 51.2, 51.2, 756, 350]
    # H200: not the H100 whitepaper's 989.4 (a sibling's); NVIDIA's AIConfigurator system spec
    # for the H200 prints the dense peaks (989 / 1978), its product page 1,979 / 3,958 sparse
    h200 = accelerators["nvidia-h200-sxm-141gb"]
    assert [float(h200[c]) for c in ("peak_bf16_dense_tflops", "peak_fp8_dense_tflops",
                                     "peak_int8_dense_tflops")] == [989, 1978, 1978]
    record = provenance[("nvidia-h200-sxm-141gb", "peak_bf16_dense_tflops")]
    assert record["verification"] == "vendor" and "h200_sxm.yaml" in record["source_url"]
    assert "1,979" in record["note"] and "with sparsity" in record["note"]
    # A100 datasheet: PCIe 40GB 250 W, PCIe 80GB 300 W, dense TF32 156 printed
    assert float(accelerators["nvidia-a100-pcie-40gb"]["tdp_w"]) == 250
    assert float(accelerators["nvidia-a100-pcie-80gb"]["tdp_w"]) == 300
    for accelerator_id in ("nvidia-a100-sxm4-40gb", "nvidia-a100-sxm4-80gb",
                           "nvidia-a100-pcie-40gb", "nvidia-a100-pcie-80gb",
                           "nvidia-h100-sxm5-80gb", "nvidia-h100-pcie-80gb"):
        levels = {provenance[(accelerator_id, m)]["verification"]
                  for m in NUMERIC if accelerators[accelerator_id][m]}
        assert levels == {"vendor"}, accelerator_id


def test_launch_is_first_availability_and_announcement_has_its_own_column(
    accelerators: dict[str, dict[str, str]],
) -> None:
    h200 = accelerators["nvidia-h200-sxm-141gb"]
    assert (h200["announce_date"], h200["launch_date"]) == ("2023-11-13", "2024-04-01")
    nvl = accelerators["nvidia-h100-nvl-94gb"]
    assert nvl["announce_date"] == "2023-03-21" and nvl["launch_date"] > nvl["announce_date"]


def test_no_row_borrows_a_siblings_tensor_figures(
    accelerators: dict[str, dict[str, str]],
    provenance: dict[tuple[str, str], dict[str, str]],
) -> None:
    # a provenance note never says a cell assumes another part's rates
    for (accelerator_id, metric), record in provenance.items():
        assert not re.search(r"assume[sd]? \S+ rates", record["note"], re.I), (accelerator_id,
                                                                            metric)
    assert "assume A10 rates" not in accelerators["nvidia-a10g-24gb"]["notes"]


def test_a10g_has_its_own_figures_not_the_a10s(
    accelerators: dict[str, dict[str, str]],
    provenance: dict[tuple[str, str], dict[str, str]],
) -> None:
    # the A10G's own NVIDIA/AWS datasheet (Feb 2022): FP32 35, TF32 35, BF16/FP16 70 | 140*,
    # INT8 140 TOPS, 600 GB/s, 300 W; the A10 prints 31.2 / 62.5 / 125 / 250 at 150 W
    a10g, a10 = accelerators["nvidia-a10g-24gb"], accelerators["nvidia-a10-24gb"]
    expected = {"peak_fp32_dense_tflops": 35, "peak_tf32_dense_tflops": 35,
                "peak_bf16_dense_tflops": 70, "peak_fp16_dense_tflops": 70,
                "peak_int8_dense_tflops": 140, "vendor_bf16_sparse_tflops": 140,
                "memory_bw_tbps": 0.6, "tdp_w": 300}
    assert {m: float(a10g[m]) for m in expected} == expected
    for metric in ("peak_tf32_dense_tflops", "peak_bf16_dense_tflops", "peak_int8_dense_tflops"):
        assert a10g[metric] != a10[metric], metric
        assert "NVIDIA_AWS_A10G_DataSheet" in provenance[("nvidia-a10g-24gb", metric)]["source_url"]
    assert a10g["launch_date"] == "2021-11-12"  # EC2 G5 general availability, not the A10's day


def test_blackwell_dense_figures_nvidia_prints(
    accelerators: dict[str, dict[str, str]],
    provenance: dict[tuple[str, str], dict[str, str]],
) -> None:
    """NVIDIA's dgxc-benchmarking README prints per-GPU peaks 'based on non-sparse
    specifications': B200 BF16 2250, FP8 4500, NVFP4 9000 (what the HGX page's sparse figures
    halve to) and B300 NVFP4 13500 (= the HGX B300 page's 108 PFLOPS dense / 8 GPUs), read as
    vendor cells; its GB200 figures (2450 / 4900 / 9800) disagree with the product page's and
    NVIDIA's AIConfigurator spec, and are only noted."""
    b200 = accelerators["nvidia-b200-sxm-180gb"]
    for metric, value in (("peak_bf16_dense_tflops", 2250), ("peak_fp8_dense_tflops", 4500),
                          ("peak_fp4_dense_tflops", 9000)):
        assert float(b200[metric]) == value
        record = provenance[("nvidia-b200-sxm-180gb", metric)]
        assert record["verification"] == "vendor" and "dgxc-benchmarking" in record["source_url"]
    assert float(accelerators["nvidia-b300-sxm-288gb"]["peak_fp4_dense_tflops"]) == 13500
    # GB200: the README's 2450 / 4900 / 9800 against NVIDIA's AIConfigurator spec 2500 / 5000 /
    # 10000, which the product pages' sparse / 2 and the NVL72 dense FP4 / 72 agree with
    for metric, value, readme in (("peak_bf16_dense_tflops", 2500, "2450"),
                                  ("peak_fp8_dense_tflops", 5000, "4900"),
                                  ("peak_fp4_dense_tflops", 10000, "9800")):
        assert float(accelerators["nvidia-gb200-186gb"][metric]) == value
        record = provenance[("nvidia-gb200-186gb", metric)]
        assert record["verification"] == "vendor" and "aiconfigurator" in record["source_url"]
        assert readme in record["note"]


def test_cells_read_in_vendor_repositories_and_verbatim_copies(
    accelerators: dict[str, dict[str, str]],
    provenance: dict[tuple[str, str], dict[str, str]],
) -> None:
    """NVIDIA's AIConfigurator l40s.yaml prints 362.05 / 733 / 733 dense and 350 W; the A40
    datasheet (in a verbatim copy, footnote marks and all) 149.7 | 299.4* BF16; Google's JAX
    tpu_info prints v5p INT8 as 9.18e14 per chip; a reseller's own L40 | L40S table does not
    count."""
    l40s = accelerators["nvidia-l40s-48gb"]
    for metric, value in (("peak_bf16_dense_tflops", 362.05), ("peak_fp8_dense_tflops", 733),
                          ("peak_int8_dense_tflops", 733), ("tdp_w", 350)):
        assert float(l40s[metric]) == value
        record = provenance[("nvidia-l40s-48gb", metric)]
        assert record["verification"] == "vendor" and "l40s.yaml" in record["source_url"]
    a40 = accelerators["nvidia-a40-48gb"]
    assert (float(a40["peak_bf16_dense_tflops"]), float(a40["vendor_bf16_sparse_tflops"])) == (
        149.7, 299.4)
    assert provenance[("nvidia-a40-48gb", "vendor_bf16_sparse_tflops")]["verification"] == "vendor"
    assert float(accelerators["google-tpu-v5p"]["peak_int8_dense_tflops"]) == 918  # 9.18e14
    assert "tpu_info.py" in provenance[("google-tpu-v5p", "peak_int8_dense_tflops")]["source_url"]
    for (accelerator_id, metric), record in provenance.items():
        if record["verification"] == "vendor":
            assert "mullet.se" not in record["source_url"] + record["document"], (
                accelerator_id, metric)
    assert provenance[("nvidia-l40-48gb", "peak_bf16_dense_tflops")]["verification"] == "secondary"


def test_mi250x_tdp_is_amds_peak_board_power(
    accelerators: dict[str, dict[str, str]],
    provenance: dict[tuple[str, str], dict[str, str]],
) -> None:
    # AMD: 500 W typical TDP, 560 W peak board power; the column holds the maximum
    assert float(accelerators["amd-mi250x-128gb"]["tdp_w"]) == 560
    assert "560" in provenance[("amd-mi250x-128gb", "tdp_w")]["document"]


# ------------------------------------------------------------------ seed platforms


def _seed_levels(accelerators, provenance) -> Counter:
    return Counter(provenance[(a, m)]["verification"]
                   for a in SEED_PLATFORMS for m in NUMERIC if accelerators[a][m].strip())


def test_seed_platform_cells_are_vendor_or_derived_from_vendor_figures(
    accelerators: dict[str, dict[str, str]],
    provenance: dict[tuple[str, str], dict[str, str]],
) -> None:
    levels = _seed_levels(accelerators, provenance)
    total = sum(levels.values())
    assert total >= 150
    assert (levels["vendor"] + levels["derived"]) / total >= 0.95, levels


@pytest.mark.xfail(strict=True, reason=(
    "issue 14 asks >= 90% vendor on the seed platforms; 88.4% (153 of 173 cells). No NVIDIA text "
    "found prints dense H100 NVL tensor figures (5 cells), dense TF32 / FP16 for H200, B200, GB200 "
    "(6): their product pages print only 2:4-sparse figures, and a halved sparse figure is "
    "'derived' by the issue's own definition; 5 more are derived by other stated rules (die area "
    "= GH100, FP64 = FP32 / 64, PCIe and Infinity Fabric link sums); 4 are secondary: TPU v4 ICI "
    "(Google prints no per-chip figure) and 3 RTX 4090 cells (TGP, die size, TF32) printed in "
    "NVIDIA's Ada whitepaper, which is only quoted, never transcribed, in the copies reachable "
    "offline. Remove this mark when the share reaches 90%."))
def test_seed_platforms_are_90_percent_vendor(
    accelerators: dict[str, dict[str, str]],
    provenance: dict[tuple[str, str], dict[str, str]],
) -> None:
    levels = _seed_levels(accelerators, provenance)
    assert levels["vendor"] / sum(levels.values()) >= 0.90, levels
