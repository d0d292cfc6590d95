"""The daily price index (price_index, docs/price-index.md) on the documented load of every
recorded file (tests/system/conftest.py `loaded`), worked out by hand from the recorded files,
and its export."""

from __future__ import annotations

import csv
import re
from datetime import UTC, date, datetime

import duckdb
import pytest

from gpucost.flows.cli.report.page import render
from gpucost.flows.cli.report.panels import collect

H100 = "nvidia-h100-sxm5-80gb"
COLUMNS = ("index_price_per_gpu_hour", "p25_price_per_gpu_hour", "p75_price_per_gpu_hour",
           "min_price_per_gpu_hour", "max_price_per_gpu_hour", "n_sellers",
           "n_sellers_observed", "n_sellers_carried", "is_published", "sellers")


def _row(con: duckdb.DuckDBPyConnection, day: str, size: int) -> dict:
    cur = con.execute(
        f"select {', '.join(COLUMNS)} from price_index where accelerator_id = ? "
        "and pricing_model = 'on_demand' and min_gpus_per_instance = ? and day = ?",
        [H100, size, day])
    rows = cur.fetchall()
    assert len(rows) == 1, rows
    return dict(zip(COLUMNS, rows[0], strict=True))


def test_h100_on_2025_07_20_worked_out_by_hand(loaded) -> None:
    """H100 SXM on demand, whole 8-GPU machines, 2025-07-20. Recorded observations of the
    month before it (30-day carry, catalog/assumptions.csv price_index_carry_days):
    * AWS p5.48xlarge (8x H100) us-east-1: 55.04 USD/h that day
      (aws_price_list/p5.48xlarge_us-east-1_ondemand_history.csv) -> 55.04/8 = 6.88, observed;
    * Voltage Park, page of 2025-07-12 (pricing_pages_html/voltagepark/): HGX H100 2.49/GPU-hour
      over InfiniBand, 8-1016 GPUs (its 1.99 Ethernet offer is recorded as 1 GPU and so only
      counts at any size) -> 2.49, carried 8 days;
    * DigitalOcean, page of 2025-07-07 (pricing_pages_html/digitalocean/): on-demand H100x8
      2.99/GPU-hour -> 2.99, carried 13 days.
    No other first-hand 8-GPU H100 SXM price is observed in 2025-06-20 .. 2025-07-20 (Crusoe's
    page of 2025-05-21 is older than 30 days; Hyperstack's is observed 07-24).
    Sorted 2.49, 2.99, 6.88: median 2.99; quantile_cont p25 = 2.49 + 0.5*(2.99-2.49) = 2.74,
    p75 = 2.99 + 0.5*(6.88-2.99) = 4.935; 3 sellers (the minimum), 1 observed, 2 carried."""
    con = loaded[0]
    row = _row(con, "2025-07-20", 8)
    assert row["index_price_per_gpu_hour"] == pytest.approx(2.99)
    assert row["p25_price_per_gpu_hour"] == pytest.approx(2.74)
    assert row["p75_price_per_gpu_hour"] == pytest.approx(4.935)
    assert (row["min_price_per_gpu_hour"], row["max_price_per_gpu_hour"]) == (2.49, 6.88)
    assert (row["n_sellers"], row["n_sellers_observed"], row["n_sellers_carried"]) == (3, 1, 2)
    assert row["sellers"] == ("voltagepark 2.4900 (from 2025-07-12), digitalocean 2.9900 "
                              "(from 2025-07-07), aws 6.8800")


def test_digitaloceans_price_expires_and_the_index_stops(loaded) -> None:
    """DigitalOcean, observed 2025-07-07, is carried through 2025-08-06 (30 days); on 08-07 only
    Voltage Park and AWS remain: 2 sellers, below the minimum of 3, so no index that day."""
    con = loaded[0]
    assert _row(con, "2025-08-06", 8)["n_sellers"] == 3
    gone = _row(con, "2025-08-07", 8)
    assert (gone["n_sellers"], gone["is_published"]) == (2, False)
    assert gone["index_price_per_gpu_hour"] is None
    assert gone["sellers"] == "voltagepark 2.4900 (from 2025-07-12), aws 6.8800"


def test_the_index_is_exported_by_month(loaded) -> None:
    """exports/price_index/months/2025-07.csv holds the hand-computed day; latest.* exist."""
    data = loaded[5]
    folder = data / "exports" / "price_index"
    assert (folder / "latest.parquet").is_file() and (folder / "latest.csv").is_file()
    with (folder / "months" / "2025-07.csv").open(encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r["accelerator_id"] == H100
                and r["pricing_model"] == "on_demand" and r["min_gpus_per_instance"] == "8"]
    by_day = {r["day"]: r for r in rows}
    assert float(by_day["2025-07-20"]["index_price_per_gpu_hour"]) == pytest.approx(2.99)
    assert min(by_day) >= "2025-07-01" and max(by_day) <= "2025-07-31"
    months = duckdb.sql(
        f"select count(*), min(day), max(day) from '{folder}/months/*.parquet'").fetchall()
    [(n, first, last)] = months
    [(total, first_day, last_day)] = loaded[0].execute(
        "select count(*), min(day), max(day) from price_index").fetchall()
    assert (n, first, last) == (total, first_day, last_day)
    assert last_day <= date(2026, 12, 31)


def test_the_report_draws_the_index_beside_the_sellers(loaded) -> None:
    """The price history chart (H100 SXM, the accelerator with the most dated history) draws
    the on-demand index over offers of any size: on 2026-10-01, its last day, runpod 3.49 (a
    1-GPU machine), coreweave 6.155, oracle 10.00, gcp 11.0613 are observed: median
    (6.155 + 10.00) / 2 = 8.0775, drawn with its interquartile range as a band."""
    html = render(collect(loaded[0], datetime.now(UTC)))  # the fixture's open connection
    history = html[html.index('<section id="history">'):]
    history = history[:history.index("</section>")]
    assert "NVIDIA H100 SXM5 80GB" in history
    assert re.search(r'<path class="series"', history)  # the sellers' own lines
    titles = re.findall(r'<path class="index"[^>]*><title>([^<]+)</title>', history)
    assert titles and titles[-1].endswith("$8.078/GPU-hour on 2026-10-01 (4 sellers)")
    assert '<path class="band"' in history and "price index (median)" in history
    assert "docs/price-index.md" in history
