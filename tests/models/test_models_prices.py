"""The price models added for broad coverage, on a small raw DB written by SQL and the fixture
catalog: crosscheck rows are listed but never override (gpu_prices, price bases), the
crosscheck mart, Vast percentiles per GPU, history from the daily rollup, and the check
crosscheck_never_a_price_basis (which must catch a model that lets one through)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from gpucost.models import runner
from gpucost.warehouse.curated import load_curated

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_SQL = ROOT / "warehouse" / "schema.sql"
FIXTURE_CATALOG = Path(__file__).resolve().parents[1] / "fixtures" / "models" / "catalog"
H100 = "nvidia-h100-sxm5-80gb"

RAW_ROWS_SQL = """
insert into fetches (fetch_id, run_id, source, stream, mode, started_at, finished_at,
                     observed_at, status, sha256, rows_loaded) values
(1, 'r1', 'runpod', 'pricing_page', 'replay', '2026-03-01 00:00+00', '2026-03-01 00:01+00',
    '2026-03-01 00:00+00', 'replayed', 'sha-rp', 2),
(2, 'r1', 'crosscheck', 'fullstack', 'replay', '2026-03-01 00:00+00', '2026-03-01 00:01+00',
    '2026-02-01 00:00+00', 'replayed', 'sha-fsdl', 3),
(3, 'r1', 'vast', 'marketplace', 'replay', '2026-03-01 00:00+00', '2026-03-01 00:01+00',
    '2026-03-01 00:00+00', 'replayed', 'sha-vast', 1);

insert into price_observations (fetch_id, source, provider, sku, region, pricing_model, os,
    currency, price_per_hour, gpu_name_raw, gpu_count, observed_at, offer_count,
    price_p10_per_hour, price_p90_per_hour) values
(1, 'runpod', 'runpod', 'H100 SXM', '', 'on_demand', 'linux', 'USD', 2.99, 'H100 SXM', 1,
    '2026-03-01 00:00+00', null, null, null),
(1, 'runpod', 'runpod', 'H100 SXM', '', 'community', 'linux', 'USD', 2.69, 'H100 SXM', 1,
    '2026-03-01 00:00+00', null, null, null),
-- crosscheck: a provider no first-hand source covers, and one that runpod covers itself
(2, 'crosscheck', 'coreweave', 'costh100', '', 'on_demand', 'linux', 'USD', 1.50, 'H100', 1,
    '2026-02-01 00:00+00', null, null, null),
(2, 'crosscheck', 'runpod', '1x H100 (80 GB)', '', 'on_demand', 'linux', 'USD', 1.99, 'H100', 1,
    '2026-02-01 00:00+00', null, null, null),
(2, 'crosscheck', 'lambda', '8x H100 (80 GB)', '', 'on_demand', 'linux', 'USD', 23.92, 'H100',
    8, '2026-02-01 00:00+00', null, null, null),
-- a Vast bucket: 2x H100, median 4.0 per instance, p10 3.2, p90 5.0, 40 offers
(3, 'vast', 'vast', '2x H100 SXM', '', 'community', 'linux', 'USD', 4.0, 'H100 SXM', 2,
    '2026-03-01 00:00+00', 40, 3.2, 5.0);

insert into price_daily (day, source, provider, sku, region, pricing_model, os, currency,
    price_per_hour, min_price_per_hour, max_price_per_hour, gpu_name_raw, gpu_count,
    n_observations, first_observed_at, last_observed_at, last_fetch_id) values
('2026-02-27', 'runpod', 'runpod', 'H100 SXM', '', 'on_demand', 'linux', 'USD', 3.49, 3.49,
    3.49, 'H100 SXM', 1, 1, '2026-02-27 00:00+00', '2026-02-27 00:00+00', 0),
('2026-03-01', 'runpod', 'runpod', 'H100 SXM', '', 'on_demand', 'linux', 'USD', 2.99, 2.99,
    2.99, 'H100 SXM', 1, 1, '2026-03-01 00:00+00', '2026-03-01 00:00+00', 1),
('2026-02-01', 'crosscheck', 'coreweave', 'costh100', '', 'on_demand', 'linux', 'USD', 1.5,
    1.5, 1.5, 'H100', 1, 1, '2026-02-01 00:00+00', '2026-02-01 00:00+00', 2),
('2026-02-27', 'crosscheck', 'runpod', '1x H100 (80 GB)', '', 'on_demand', 'linux', 'USD',
    1.99, 1.99, 1.99, 'H100', 1, 1, '2026-02-27 00:00+00', '2026-02-27 00:00+00', 2);
"""


def build_from_raw(tmp: Path, raw_rows_sql: str) -> duckdb.DuckDBPyConnection:
    """The models built over a raw layer written by `raw_rows_sql` and the fixture catalog."""
    raw = duckdb.connect(str(tmp / "raw.duckdb"))
    raw.execute(SCHEMA_SQL.read_text(encoding="utf-8"))
    raw.execute(raw_rows_sql)
    raw.close()
    con = duckdb.connect(str(tmp / "next.duckdb"))
    con.execute(f"attach '{tmp / 'raw.duckdb'}' as raw (read_only)")
    load_curated(con, catalog_dir=FIXTURE_CATALOG)
    runner.build(con)
    return con


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    con = build_from_raw(tmp_path_factory.mktemp("price_models"), RAW_ROWS_SQL)
    yield con
    con.close()


def test_checks_pass(con) -> None:
    assert runner.run_checks(con) == {}


def test_gpu_prices_list_crosscheck_providers_without_using_them(con) -> None:
    row = con.execute(
        "select n_providers, n_providers_crosscheck, n_providers_listed, providers, "
        "min_price_per_gpu_hour, median_price_per_gpu_hour, cheapest_provider, "
        "crosscheck_median_price_per_gpu_hour from gpu_prices "
        "where accelerator_id = ? and pricing_model = 'on_demand'", [H100]).fetchone()
    # first-hand and reference: lambda 2.49 (a reference price of the fixture catalog), runpod
    # 2.99 (its crosscheck 1.99 does not override it): median 2.74; aws's reference 98.32 / 8
    # of 2025-06-01 is 273 days older than the newest H100 price (runpod, 2026-03-01): a stale
    # seller, listed, out of the statistics (issue 37); coreweave (1.50, cheaper, crosscheck
    # only) is listed but stays out of min / median / cheapest
    assert row == (2, 1, 4, "lambda, runpod, aws (stale), coreweave (crosscheck)", 2.49,
                   pytest.approx(2.74), "lambda", 1.5)
    kinds = dict(con.execute("select sku, source_kind from gpu_offers where accelerator_id = ? "
                             "and pricing_model = 'on_demand'", [H100]).fetchall())
    assert kinds["costh100"] == "crosscheck" and kinds["H100 SXM"] == "first_hand"


def test_price_bases_never_use_crosscheck(con) -> None:
    rows = con.execute("select price_basis, provider, price_per_gpu_hour from int_price_bases "
                       "where accelerator_id = ? and min_gpus_per_instance = 1 order by 1",
                       [H100]).fetchall()
    # the median of the fresh sellers' prices (lambda 2.49, runpod 2.99; aws is stale)
    assert rows == [("community_min", "vast", 2.0), ("on_demand_median", None,
                                                     pytest.approx(2.74)),
                    ("on_demand_min", "lambda", 2.49), ("reserved_1y_min", "aws", 8.0)]


def test_price_crosscheck(con) -> None:
    rows = {r[0]: r[1:] for r in con.execute(
        "select provider, compared_by, first_hand_min_price_per_gpu_hour, "
        "round(difference_pct, 2), verdict from price_crosscheck").fetchall()}
    assert rows["runpod"] == ("accelerator", 2.99, round((1.99 / 2.99 - 1) * 100, 2),
                              "disagrees")
    assert rows["coreweave"] == (None, None, None, "no_first_hand_price")
    # 23.92 / 8 = 2.99 against lambda's reference price 2.49
    assert rows["lambda"] == ("accelerator", 2.49, round((2.99 / 2.49 - 1) * 100, 2),
                              "disagrees")


def test_vast_bucket_percentiles_per_gpu(con) -> None:
    row = con.execute("select offer_count, p10_price_per_gpu_hour, price_per_gpu_hour, "
                      "p90_price_per_gpu_hour from gpu_offers where source = 'vast'").fetchone()
    assert row == (40, 1.6, 2.0, 2.5)


def test_history_marts_from_the_rollup(con) -> None:
    history = con.execute("select cast(day as varchar), provider, price_per_gpu_hour, "
                          "source_kind from price_history where pricing_model = 'on_demand' "
                          "order by 1, 2").fetchall()
    # 2026-02-27: runpod observed first-hand (3.49) and in a crosscheck table (1.99): the
    # first-hand price is the day's price
    assert history == [("2026-02-01", "coreweave", 1.5, "crosscheck"),
                       ("2026-02-27", "runpod", 3.49, "first_hand"),
                       ("2026-03-01", "runpod", 2.99, "first_hand")]
    changes = con.execute("select sku, old_price_per_hour, new_price_per_hour, "
                          "round(change_pct, 2) from price_changes").fetchall()
    assert changes == [("H100 SXM", 3.49, 2.99, -14.33)]
    coverage = con.execute("select source, offer_days, offer_days_mapped "
                           "from gpu_name_coverage order by 1, 2").fetchall()
    assert coverage == [("crosscheck", 1, 1), ("crosscheck", 1, 1), ("runpod", 2, 2)]


def test_the_check_catches_a_crosscheck_price_basis(con) -> None:
    con.execute("create or replace temp table price_bases_backup as select * from price_bases")
    try:
        con.execute("insert into price_bases (accelerator_id, price_basis, pricing_model, "
                    "price_per_gpu_hour, currency, provider, source) values "
                    "(?, 'reserved_1y_cud_est', 'reserved_1y', 1.5, 'USD', 'coreweave', "
                    "'crosscheck')", [H100])
        failures = runner.run_checks(con)
    finally:
        con.execute("create or replace table price_bases as select * from price_bases_backup")
    assert set(failures) == {"crosscheck_never_a_price_basis"}
    assert failures["crosscheck_never_a_price_basis"][0][2:] == ("coreweave", "crosscheck")


def test_price_kind_reaches_gpu_offers_and_old_rows_read_as_instance(tmp_path: Path) -> None:
    """price_kind (issue 37 item 2): a raw table created before the column existed gains it
    from schema.sql's migration, its rows reading 'instance'; a row loaded with a kind keeps
    it through staging and int_offers_mapped into gpu_offers."""
    raw = duckdb.connect(str(tmp_path / "raw.duckdb"))
    raw.execute("""
        create table price_observations (
            fetch_id bigint not null, source varchar not null, provider varchar not null,
            sku varchar not null, region varchar not null, pricing_model varchar not null,
            os varchar, currency varchar not null, price_per_hour double,
            gpu_name_raw varchar, gpu_count double, gpu_memory_gb double, vcpus double,
            ram_gb double, observed_at timestamptz not null);
        insert into price_observations values (1, 'runpod', 'runpod', 'H100 SXM', '',
            'on_demand', 'linux', 'USD', 2.99, 'H100 SXM', 1, null, null, null,
            '2026-03-01 00:00+00');
    """)
    raw.execute(SCHEMA_SQL.read_text(encoding="utf-8"))
    raw.execute("""
        insert into fetches (fetch_id, run_id, source, stream, mode, started_at, finished_at,
                             observed_at, status, sha256, rows_loaded) values
        (1, 'r1', 'runpod', 'pricing_page', 'replay', '2026-03-01 00:00+00',
            '2026-03-01 00:01+00', '2026-03-01 00:00+00', 'replayed', 'sha-rp', 1),
        (2, 'r1', 'coreweave', 'pricing_page', 'replay', '2026-03-01 00:00+00',
            '2026-03-01 00:01+00', '2023-09-21 00:00+00', 'replayed', 'sha-cw', 1);
        insert into price_observations (fetch_id, source, provider, sku, region, pricing_model,
            os, currency, price_per_hour, gpu_name_raw, gpu_count, observed_at, price_kind)
        values (2, 'coreweave', 'coreweave', 'gpu-component:hgx-h100', '', 'on_demand',
            'linux', 'USD', 4.76, 'H100 SXM', 1, '2023-09-21 00:00+00', 'gpu_component');
    """)
    raw.close()
    con = duckdb.connect(str(tmp_path / "next.duckdb"))
    con.execute(f"attach '{tmp_path / 'raw.duckdb'}' as raw (read_only)")
    load_curated(con, catalog_dir=FIXTURE_CATALOG)
    runner.build(con)
    rows = con.execute("select provider, sku, price_kind from gpu_offers"
                       " where source <> 'reference' order by provider").fetchall()
    kinds = {k for (k,) in con.execute("select distinct price_kind from gpu_offers"
                                       " where source = 'reference'").fetchall()}
    con.close()
    assert kinds == {"instance"}  # the curated reference prices are whole instances
    assert rows == [("coreweave", "gpu-component:hgx-h100", "gpu_component"),
                    ("runpod", "H100 SXM", "instance")]
