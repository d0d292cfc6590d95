"""Non-USD offers in US dollars (models/intermediate/int_offers_usd.sql, mart fx_rates,
docs/currencies.md), worked by hand from the recorded ECB file
(../shared/data/fx/eurofxref-hist.zip: 1 EUR = 1.113 USD on Thursday 2026-10-29, 1.1193 USD on
Friday 2026-10-23, no rate on the weekend of 24-25 October) and SkyPilot's recorded Scaleway
catalog (H100-1-80G in fr-par-2 at 2.52 EUR per hour, one H100 PCIe)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import duckdb
import pytest

from gpucost.flows.ingest import ingest_files
from gpucost.flows.steps import build_and_publish
from gpucost.models.runner import MODELS_DIR

SCALEWAY = Path("prices") / "skypilot_format" / "scaleway_vms_1fbe733.csv"
SEEWEB = Path("prices") / "skypilot_format" / "seeweb_vms_004a1ae.csv"
HISTORY = Path("fx") / "eurofxref-hist.zip"
H100_PCIE = "nvidia-h100-pcie-80gb"


def _warehouse(shared: Path, data: Path, scaleway_day: datetime,
               seeweb_day: datetime | None = None) -> duckdb.DuckDBPyConnection:
    ingest_files("ecb_fx", [shared / HISTORY], data_dir=data, rebuild=False)
    ingest_files("skypilot", [shared / SCALEWAY], observed_at=scaleway_day, data_dir=data,
                 rebuild=False)
    if seeweb_day is not None:
        ingest_files("skypilot", [shared / SEEWEB], observed_at=seeweb_day, data_dir=data,
                     rebuild=False)
    build_and_publish(data)
    return duckdb.connect(str(data / "gpucost.duckdb"), read_only=True)


@pytest.fixture(scope="module")
def weekday(shared_data: Path, tmp_path_factory: pytest.TempPathFactory):
    # Scaleway observed on Thursday 2026-10-29; Seeweb on 2026-11-20, 21 days after the
    # recorded history's last rate (2026-10-30): no rate for its day
    con = _warehouse(shared_data, tmp_path_factory.mktemp("fx-weekday"),
                     datetime(2026, 10, 29, 12, tzinfo=UTC), datetime(2026, 11, 20, 12, tzinfo=UTC))
    yield con
    con.close()


@pytest.fixture(scope="module")
def weekend(shared_data: Path, tmp_path_factory: pytest.TempPathFactory):
    # Scaleway observed on Sunday 2026-10-25: the ECB published nothing that weekend
    con = _warehouse(shared_data, tmp_path_factory.mktemp("fx-weekend"),
                     datetime(2026, 10, 25, 12, tzinfo=UTC))
    yield con
    con.close()


def _h100(con: duckdb.DuckDBPyConnection) -> tuple:
    return con.execute(
        "select price_per_hour, price_per_gpu_hour, currency, price_listed, currency_listed, "
        "fx_usd_per_unit, fx_rate_date, fx_basis from gpu_offers "
        "where provider = 'scaleway' and sku = 'H100-1-80G' and region = 'fr-par-2'").fetchone()


def test_scaleway_weekday_price_at_that_days_rate(weekday: duckdb.DuckDBPyConnection) -> None:
    # 2.52 EUR x 1.113 USD/EUR (ECB, Thursday 2026-10-29) = 2.80476 USD per hour
    usd, per_gpu, currency, listed, listed_in, rate, rate_day, basis = _h100(weekday)
    assert usd == pytest.approx(2.80476, abs=1e-9)
    assert per_gpu == pytest.approx(2.80476, abs=1e-9)  # one GPU
    assert (currency, listed, listed_in) == ("USD", 2.52, "EUR")
    assert (rate, rate_day, basis) == (1.113, date(2026, 10, 29), "observation_day")


def test_scaleway_weekend_price_at_fridays_rate(weekend: duckdb.DuckDBPyConnection) -> None:
    # Sunday 2026-10-25 has no ECB rate: Friday 2026-10-23's, 1.1193 USD/EUR;
    # 2.52 EUR x 1.1193 = 2.820636 USD per hour
    usd, _, currency, listed, listed_in, rate, rate_day, basis = _h100(weekend)
    assert usd == pytest.approx(2.820636, abs=1e-9)
    assert (currency, listed, listed_in) == ("USD", 2.52, "EUR")
    assert (rate, rate_day, basis) == (1.1193, date(2026, 10, 23), "observation_day")


def test_converted_price_reaches_the_usd_answers(weekday: duckdb.DuckDBPyConnection) -> None:
    # Scaleway is the only dated seller of the H100 PCIe in this warehouse: its converted
    # price is the statistic (gpu_prices reads int_provider_prices, USD only)
    row = weekday.execute(
        "select price_per_gpu_hour, currency, currency_listed, fx_rate_date, in_statistics "
        "from intermediate.int_provider_prices where seller = 'scaleway' and accelerator_id = ? "
        "and pricing_model = 'on_demand' and min_gpus_per_instance = 1", [H100_PCIE]).fetchone()
    assert row[0] == pytest.approx(2.80476, abs=1e-9)
    assert row[1:] == ("USD", "EUR", date(2026, 10, 29), True)
    low = weekday.execute("select min_price_per_gpu_hour from gpu_prices where accelerator_id = ? "
                          "and pricing_model = 'on_demand'", [H100_PCIE]).fetchone()[0]
    assert low == pytest.approx(2.80476, abs=1e-9)


def test_a_price_without_a_rate_is_listed_never_converted(
        weekday: duckdb.DuckDBPyConnection) -> None:
    # Seeweb observed 2026-11-20: the last rate is 2026-10-30, 21 days before (more than 7):
    # its EUR prices stay EUR, named no_rate, and out of every USD statistic
    rows = weekday.execute(
        "select distinct currency, currency_listed, fx_basis, fx_rate_date, fx_usd_per_unit "
        "from gpu_offers where provider = 'seeweb'").fetchall()
    assert rows == [("EUR", "EUR", "no_rate", None, None)]
    ecs = weekday.execute("select price_per_hour, price_listed from gpu_offers where "
                          "provider = 'seeweb' and sku = 'ECS1GPU8'").fetchone()
    assert ecs == (1.89, 1.89)
    assert weekday.execute("select count(*) from intermediate.int_provider_prices "
                           "where seller = 'seeweb'").fetchone() == (0,)


def test_fx_rates_mart_derives_usd_per_unit(weekday: duckdb.DuckDBPyConnection) -> None:
    # 2026-10-30: EUR = 1.1172 USD; GBP = 1.1172 / 0.8338 = 1.339889...; JPY = 1.1172 / 175.68
    got = dict(weekday.execute(
        "select currency, usd_per_unit from fx_rates where rate_date = '2026-10-30' "
        "and currency in ('EUR', 'GBP', 'JPY')").fetchall())
    assert got["EUR"] == pytest.approx(1.1172, abs=1e-12)
    assert got["GBP"] == pytest.approx(1.3398896618, abs=1e-9)
    assert got["JPY"] == pytest.approx(0.0063593, abs=1e-7)
    usd_rows = weekday.execute("select count(*) from fx_rates where currency = 'USD'").fetchone()
    assert usd_rows == (0,)
    # every ECB day has its EUR row: 7,126 days from 1999-01-04 to 2026-10-30
    assert weekday.execute("select count(*), min(rate_date), max(rate_date) from fx_rates "
                           "where currency = 'EUR'").fetchone() == (
        7126, date(1999, 1, 4), date(2026, 10, 30))


def test_usd_per_unit_macro() -> None:
    """The conversion itself, in plain SQL: USD per X = (USD per EUR) / (X per EUR)."""
    con = duckdb.connect()
    con.execute((MODELS_DIR / "macros" / "usd_per_unit.sql").read_text(encoding="utf-8"))
    # GBP on 2026-10-30 (ECB): 1.1172 / 0.8338 = 1.339889...; the euro itself: 1.1172 / 1
    assert con.execute("select usd_per_unit(1.1172, 0.8338)").fetchone()[0] == pytest.approx(
        1.3398896618, abs=1e-9)
    assert con.execute("select usd_per_unit(1.1172, 1.0)").fetchone()[0] == 1.1172
    # 2.52 EUR on 2026-10-29: 2.52 x usd_per_unit(1.113, 1) = 2.80476 USD
    assert con.execute("select 2.52 * usd_per_unit(1.113, 1.0)").fetchone()[0] == pytest.approx(
        2.80476, abs=1e-12)


def test_a_providers_currency_is_a_sourced_iso_code() -> None:
    """models/checks/provider_currency_stated.sql on catalog/providers.csv and on two bad rows."""
    con = duckdb.connect()
    con.execute("create schema curated")
    con.execute("create table curated.providers as select * from read_csv(?, all_varchar = true)",
                [str(MODELS_DIR.parent / "catalog" / "providers.csv")])
    staging = (MODELS_DIR / "staging" / "stg_curated__providers.sql").read_text(encoding="utf-8")
    con.execute(f"create view stg_curated__providers as {staging}")
    check = (MODELS_DIR / "checks" / "provider_currency_stated.sql").read_text(encoding="utf-8")
    assert con.execute(check).fetchall() == []
    stated = dict(con.execute("select provider, currency from stg_curated__providers "
                              "where currency is not null").fetchall())
    assert stated == {"scaleway": "EUR", "seeweb": "EUR", "ovhcloud": "USD"}
    con.execute("insert into curated.providers (provider, listing_kind, currency, source_url) "
                "values ('a', 'own', 'euro', 'https://example.com'), ('b', 'own', 'EUR', null)")
    assert sorted(con.execute(check).fetchall()) == [
        ("a", "EURO", "currency is not an ISO 4217 code"), ("b", "EUR", "source_url")]


def _history(con: duckdb.DuckDBPyConnection, provider: str) -> list[tuple]:
    return con.execute(
        "select day, price_per_gpu_hour, currency, currency_listed, fx_rate_date "
        "from price_history where provider = ? and accelerator_id = ? order by day",
        [provider, H100_PCIE]).fetchall()


def test_price_history_converts_a_day_at_that_days_rate(
        weekday: duckdb.DuckDBPyConnection, weekend: duckdb.DuckDBPyConnection) -> None:
    # the same figures as the offer in force: Thursday 2.52 x 1.113 = 2.80476 USD per GPU-hour,
    # Sunday at Friday's 1.1193: 2.820636; the day's row names the rate's day
    [(day, usd, currency, listed_in, rate_day)] = _history(weekday, "scaleway")
    assert (day, currency, listed_in, rate_day) == (
        date(2026, 10, 29), "USD", "EUR", date(2026, 10, 29))
    assert usd == pytest.approx(2.80476, abs=1e-9)
    [(day, usd, currency, listed_in, rate_day)] = _history(weekend, "scaleway")
    assert (day, currency, listed_in, rate_day) == (
        date(2026, 10, 25), "USD", "EUR", date(2026, 10, 23))
    assert usd == pytest.approx(2.820636, abs=1e-9)


def test_price_history_leaves_out_a_day_no_rate_converts(
        weekday: duckdb.DuckDBPyConnection) -> None:
    # Seeweb observed 2026-11-20, 21 days after the recorded history's last rate: not in the
    # USD history (it is listed in gpu_offers with fx_basis no_rate)
    assert weekday.execute("select count(*) from price_history where provider = 'seeweb'"
                           ).fetchone() == (0,)
    assert weekday.execute("select count(*) from gpu_offers where provider = 'seeweb' and "
                           "fx_basis = 'no_rate'").fetchone()[0] > 0
