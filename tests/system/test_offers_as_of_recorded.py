"""`gpucost offers --as-of DAY` on the documented load of every recorded file (the `loaded`
fixture): as of today it is exactly the published answer, and as of past days it is what was
in force then, with the same rules. Figures read by hand from ../shared/data/prices:

* skypilot_format/lambda_vms_2026-04-02.csv: gpu_8x_h100_sxm5 at 27.52 USD/h in all 17 rows
  (3.44 per GPU); lambda_vms_2026-05-07.csv: 31.92 (3.99 per GPU).
* aws_price_list/p5.48xlarge_us-east-1_ondemand_history.csv (a daily history: every row its own
  date): 98.32 on 2025-06-04T07:23:25, 55.04 from 2025-06-05T07:22:36 (the p5 cut).
* skypilot_format/gcp_vms_2026-05-20.csv, us-central1-a: the a3-highgpu-8g VM row 9.46006 plus
  the H100 x 8 GPU row 33.60609 = 43.06615 USD/h (5.3833 per GPU). GCP's own page, observed
  2026-10-01, states 88.49 for that machine: disputed today (price_disputes), but not as of
  2026-06-01, when only the catalog had been observed.
* Paperspace's H100x8 at 48 USD/h, observed 2024-01-23 09:21:47 UTC: as of 2024-06-01 it is
  130.6 days old at the end of that day (8 d 14 h 38 m to 2024-02-01, then 29 + 31 + 30 + 31
  + 1 days) and fresh; as of 2024-09-01 a newer H100 price more than 180 days
  (price_max_age_days) younger exists, so it is stale, as it is today.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from gpucost.flows.cli.offers import connect_as_of, parse_as_of, query_offers
from gpucost.models import as_of


def _offers(loaded, gpu: str, day=None, **filters):
    """query_offers as gpucost.offers runs it: on the published file (the fixture's connection:
    one process cannot open it again with another configuration), or as of `day`."""
    if day is None:
        return query_offers(loaded[0], gpu, **filters)
    con = connect_as_of(loaded[5], parse_as_of(day))
    try:
        return query_offers(con, gpu, **filters)
    finally:
        con.close()


def _offer(frame, provider: str, sku: str, region: str | None = None):
    rows = frame[(frame["provider"] == provider) & (frame["sku"] == sku)]
    if region is not None:
        rows = rows[rows["region"] == region]
    assert len(rows) == 1, rows
    return rows.iloc[0]


def test_as_of_today_is_exactly_the_published_answer(loaded) -> None:
    """Every column of gpu_offers and unmapped_gpu_names rebuilt as of now equals the published
    table, row for row (age_days: counted at the build there, now here)."""
    data = loaded[5]
    con = as_of.connect_as_of(data / "gpucost.duckdb", data / "raw.duckdb",
                              datetime.now(UTC))
    try:
        published = con.execute("select count(*) from published.main.gpu_offers").fetchall()
        assert published[0][0] > 5000
        for table, exclude in (("gpu_offers", "exclude (age_days)"),
                               ("unmapped_gpu_names", "")):
            for one, other in (("temp.main", "published.main"),
                               ("published.main", "temp.main")):
                extra = con.execute(
                    f"select count(*) from (select * {exclude} from {one}.{table} "
                    f"except all select * {exclude} from {other}.{table})").fetchall()[0][0]
                assert extra == 0, (table, one)
    finally:
        con.close()
    # and through the offers query, with today's day
    today = datetime.now(UTC).date()
    for gpu in ("H100", "A100:8", "MI300X"):
        now = _offers(loaded, gpu, pricing_model="all", include_reference=True,
                      include_crosscheck=True)
        then = _offers(loaded, gpu, today, pricing_model="all", include_reference=True,
                       include_crosscheck=True)
        columns = [c for c in now.columns if c != "age_days"]
        key = ["provider", "sku", "pricing_model", "source"]
        assert len(now) > 0
        assert now[columns].sort_values(key).reset_index(drop=True).equals(
            then[columns].sort_values(key).reset_index(drop=True)), gpu


def test_as_of_a_past_day_shows_then_prices_and_nothing_observed_after(loaded) -> None:
    frame = _offers(loaded, "H100", "2026-04-15", pricing_model="all", all_regions=True,
                    include_reference=True, include_crosscheck=True)
    end = datetime(2026, 4, 16, tzinfo=UTC)
    assert len(frame) > 0
    assert frame["observed_at"].dropna().max() < end
    # every undated file of the load was loaded after 2026-04-15: none is in force then
    assert frame["observed_at_known"].all()
    lambda_8x = _offer(frame[frame["source"] == "skypilot"], "lambda", "gpu_8x_h100_sxm5",
                       "us-east-1")
    assert lambda_8x["price_per_hour"] == pytest.approx(27.52)
    assert lambda_8x["price_per_gpu_hour"] == pytest.approx(3.44)
    assert lambda_8x["age_days"] == pytest.approx(14.0)
    today = _offers(loaded, "H100:8", provider="lambda", all_regions=True)
    assert _offer(today[today["source"] == "skypilot"], "lambda", "gpu_8x_h100_sxm5",
                  "us-east-1")["price_per_hour"] == pytest.approx(31.92)


def test_as_of_reads_a_daily_history_payload_row_by_row(loaded) -> None:
    """The AWS history file is one payload dated by its newest row (2026-08-22): as of a day
    before that, its rows dated by then are in force, the newest of them."""
    before = _offers(loaded, "H100:8", "2025-06-04", provider="aws")
    after = _offers(loaded, "H100:8", date(2025, 6, 5), provider="aws")
    p5_before, p5_after = (_offer(f, "aws", "p5.48xlarge", "us-east-1")
                           for f in (before, after))
    assert p5_before["price_per_hour"] == pytest.approx(98.32)
    assert p5_after["price_per_hour"] == pytest.approx(55.04)
    assert p5_after["price_per_gpu_hour"] == pytest.approx(6.88)
    assert str(p5_before["observed_at"]).startswith("2025-06-04 07:23:25")
    assert str(p5_after["observed_at"]).startswith("2025-06-05 07:22:36")


def test_as_of_disputes_are_judged_with_what_was_known_then(loaded) -> None:
    kwargs = dict(provider="gcp", all_regions=True, region="us-central1-a")
    then = _offers(loaded, "H100:8", "2026-06-01", **kwargs)
    now = _offers(loaded, "H100:8", **kwargs)
    for frame, disputed in ((then, False), (now, True)):
        a3 = _offer(frame, "gcp", "a3-highgpu-8g", "us-central1-a")
        assert a3["source"] == "skypilot"
        assert a3["price_per_hour"] == pytest.approx(9.46006 + 33.60609)
        assert a3["price_per_gpu_hour"] == pytest.approx(43.06615 / 8)
        assert bool(a3["is_disputed"]) is disputed


def test_as_of_staleness_counts_from_the_day(loaded) -> None:
    frames = {day: _offers(loaded, "H100:8", day, provider="paperspace")
              for day in ("2024-06-01", "2024-09-01")}
    frames["today"] = _offers(loaded, "H100:8", provider="paperspace")
    fresh = _offer(frames["2024-06-01"], "paperspace", "H100x8")
    assert fresh["price_per_hour"] == pytest.approx(48.0)
    assert fresh["age_days"] == pytest.approx(130.6)
    assert not fresh["is_stale"]
    for day in ("2024-09-01", "today"):
        assert _offer(frames[day], "paperspace", "H100x8")["is_stale"], day
