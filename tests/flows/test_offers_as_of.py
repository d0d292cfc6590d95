"""`gpucost offers GPU --as-of DAY` and `gpucost.offers(..., as_of=DAY)`: the offers in force at
the end of a past UTC day, built by the same SQL models from the raw layer (models/as_of.py).

Worked out by hand from the recorded SkyPilot-format Lambda catalogs
(../shared/data/prices/skypilot_format/): every one of the 17 `gpu_8x_h100_sxm5` rows of
lambda_vms_2026-04-02.csv has Price 27.52 (USD per hour for the 8-GPU instance: 27.52 / 8 =
3.44 per GPU-hour), every one of lambda_vms_2026-05-07.csv has 31.92 (31.92 / 8 = 3.99). So
as of a day between them the 8x H100 is 27.52 (observed 2026-04-02: 2026-04-15 is 14.0 days
later at the end of that day), and from 2026-05-07 on it is 31.92. The header-only catalog of
a failed run (lambda_vms_2026-05-07_failed_run_header_only.csv) is refused and never
displaces the 2026-05-07 prices, as of any day.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from gpucost.flows.cli.main import main
from gpucost.flows.cli.offers import AsOfError, parse_as_of
from gpucost.flows.cli.output import EXIT_FAILED, EXIT_OK, EXIT_USAGE

CATALOGS = Path("prices") / "skypilot_format"
APRIL, MAY = "lambda_vms_2026-04-02.csv", "lambda_vms_2026-05-07.csv"
FAILED = "lambda_vms_2026-05-07_failed_run_header_only.csv"
APRIL_PRICE, MAY_PRICE = 27.52, 31.92  # read from the CSVs by hand (see the module doc)


@pytest.fixture(scope="module")
def lambda_two_days(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A warehouse holding the two Lambda catalogs (and the refused header-only one)."""
    data = tmp_path_factory.mktemp("asof")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GPUCOST_DATA_DIR", str(data))
        folder = shared_data / CATALOGS
        assert main(["ingest", "skypilot", str(folder / MAY), "--observed-at",
                     "2026-05-07"]) == EXIT_OK
        # an older payload replayed after a newer one: in force only as of its own days
        assert main(["ingest", "skypilot", str(folder / APRIL), "--observed-at",
                     "2026-04-02"]) == EXIT_OK
        # a failed run's header-only catalog, a day later: refused, displaces nothing
        assert main(["ingest", "skypilot", str(folder / FAILED), "--observed-at",
                     "2026-05-08"]) != EXIT_OK
    return data


def _lambda_8x_h100(data: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GPUCOST_DATA_DIR", str(data))
        assert main(["offers", "H100:8", "--provider", "lambda", "--format", "json",
                     *extra]) == EXIT_OK
    rows = [r for r in json.loads(capsys.readouterr().out) if r["sku"] == "gpu_8x_h100_sxm5"]
    assert len(rows) == 1
    return rows[0]


def test_as_of_a_day_between_the_catalogs_shows_the_earlier_price(lambda_two_days, capsys):
    row = _lambda_8x_h100(lambda_two_days, capsys, "--as-of", "2026-04-15")
    assert row["price_per_hour"] == pytest.approx(APRIL_PRICE)
    assert row["price_per_gpu_hour"] == pytest.approx(APRIL_PRICE / 8) == pytest.approx(3.44)
    assert row["observed_at"].startswith("2026-04-02")
    # the age counts from the end of 2026-04-15, not from today
    assert row["age_days"] == pytest.approx(14.0)
    assert row["is_stale"] is False and row["is_disputed"] is False
    # the last day before the May catalog still has the April price
    row = _lambda_8x_h100(lambda_two_days, capsys, "--as-of", "2026-05-06")
    assert row["price_per_hour"] == pytest.approx(APRIL_PRICE)


def test_as_of_the_later_catalog_day_and_after_shows_the_later_price(lambda_two_days, capsys):
    for day in ("2026-05-07", "2026-05-08", "2026-06-30"):
        row = _lambda_8x_h100(lambda_two_days, capsys, "--as-of", day)
        assert row["price_per_hour"] == pytest.approx(MAY_PRICE), day
        assert row["price_per_gpu_hour"] == pytest.approx(3.99)
        assert row["observed_at"].startswith("2026-05-07")
    # without --as-of: the newest catalog, as before
    assert _lambda_8x_h100(lambda_two_days, capsys)["price_per_hour"] == pytest.approx(MAY_PRICE)


def test_as_of_today_is_the_answer_without_it(lambda_two_days, capsys):
    import gpucost

    today = datetime.now(UTC).date()
    now = gpucost.offers("H100", data_dir=lambda_two_days, pricing_model="all",
                         include_reference=True, all_regions=True)
    then = gpucost.offers("H100", data_dir=lambda_two_days, pricing_model="all",
                          include_reference=True, all_regions=True, as_of=today.isoformat())
    assert then.attrs["as_of"] == today.isoformat() and now.attrs["as_of"] is None
    assert len(now) > 0
    columns = [c for c in now.columns if c != "age_days"]  # ages: at the build vs now
    key = ["provider", "sku", "region", "pricing_model", "source"]
    assert now[columns].sort_values(key).reset_index(drop=True).equals(
        then[columns].sort_values(key).reset_index(drop=True))


def test_as_of_footer_says_the_day_and_a_day_without_the_offer(lambda_two_days, capsys,
                                                              monkeypatch):
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(lambda_two_days))
    assert main(["offers", "H100:8", "--provider", "lambda", "--as-of", "2026-04-15"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "27.52" in out and "3.44" in out and "14 d" in out
    assert "as of the end of 2026-04-15 UTC" in out
    # the day before the April catalog: Lambda's catalog was not observed yet
    assert main(["offers", "H100:8", "--provider", "lambda", "--as-of",
                 "2026-04-01"]) == EXIT_FAILED
    assert "no on-demand offer in force at the end of 2026-04-01 UTC" in capsys.readouterr().out


def test_as_of_a_day_before_any_price_is_a_named_usage_error(lambda_two_days, capsys,
                                                            monkeypatch):
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(lambda_two_days))
    assert main(["offers", "H100:8", "--as-of", "2001-01-01"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "no price had been observed by the end of that day" in err
    assert "the first observation in the warehouse is of" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("text", ["2026-13-01", "15/04/2026", "2026-4-15", "yesterday", "",
                                  "2026-04-15T00:00", "2026-04-15\x1b[31m"])
def test_as_of_malformed_is_a_usage_error(text, capsys) -> None:
    # said before any warehouse is opened
    assert main(["offers", "H100", "--as-of", text]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "--as-of" in err and "YYYY-MM-DD" in err and "\x1b" not in err


def test_as_of_in_the_future_is_a_usage_error(capsys) -> None:
    tomorrow = (datetime.now(UTC).date() + timedelta(days=1)).isoformat()
    assert main(["offers", "H100", "--as-of", tomorrow]) == EXIT_USAGE
    assert "in the future" in capsys.readouterr().err
    with pytest.raises(AsOfError, match="in the future"):
        parse_as_of("2026-05-08", today=date(2026, 5, 7))
    assert parse_as_of(date(2026, 5, 7), today=date(2026, 5, 7)) == date(2026, 5, 7)
    with pytest.raises(AsOfError, match="not an instant"):
        parse_as_of(datetime(2026, 5, 7, tzinfo=UTC))


def test_as_of_with_a_workload_is_a_usage_error(lambda_two_days, capsys, monkeypatch):
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(lambda_two_days))
    assert main(["offers", "H100:8", "--as-of", "2026-04-15", "--workload",
                 "llama2-70b"]) == EXIT_USAGE
    assert "--workload is not answered as of a day" in capsys.readouterr().err


def test_as_of_while_a_writer_holds_the_lock_is_a_named_error(lambda_two_days, capsys,
                                                              monkeypatch):
    """The raw layer is read under the writer lock: a refresh or ingest running says so."""
    from gpucost.warehouse.publish import writer_lock

    monkeypatch.setenv("GPUCOST_DATA_DIR", str(lambda_two_days))
    with writer_lock(lambda_two_days):
        assert main(["offers", "H100:8", "--as-of", "2026-04-15"]) == EXIT_FAILED
    err = capsys.readouterr().err
    assert "another gpucost refresh/ingest is writing" in err and "Traceback" not in err
    # the answer without --as-of reads the published file only: no lock needed
    with writer_lock(lambda_two_days):
        assert main(["offers", "H100:8", "--provider", "lambda"]) == EXIT_OK
