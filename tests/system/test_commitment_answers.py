"""Answers by term (issue 41 item 2) on the documented load of every recorded file
(tests/system/conftest.py `loaded`): `gpucost offers H100:8 --term 12`, gpu_prices per pricing
model and term, commitment_breakeven and the rent-vs-buy answer beside it.

Worked by hand from two recorded files:
* ../shared/data/prices/pricing_pages_html/gcp/gcp_gpus-pricing_tables_ewyluda-1e77fb7.html,
  row a3-highgpu-8g (8 x H100 SXM, us-central1, about autumn 2026, loaded as ~2026-10):
  on-demand $88.490000119 / 1 hour, Compute Resource CUD 1-year $61.383674231 / 1 hour,
  3-year $38.864383195 / 1 hour. Per GPU: 1-year 61.383674231 / 8 = 7.672959278875.
* ../shared/data/prices/skypilot_format/lambda_vms_2026-05-07.csv: gpu_8x_h100_sxm5, 8 x H100,
  Price 31.92 in every Lambda region: 31.92 / 8 = 3.99 per GPU-hour, the cheapest dated,
  fresh, undisputed 8-GPU on-demand H100 SXM offer of the load (the cheaper 8-GPU rows of Cudo,
  DataCrunch, ... are undated SkyPilot rows: no current price while a dated one exists).
So the GCP 1-year CUD pays against the cheapest 8-GPU on-demand offer at 7.672959278875 / 3.99
= 1.9230 of the hours: never; against GCP's own on-demand price at 61.383674231 /
88.490000119 = 0.69368 of the hours. The 3-year CUD: 38.864383195 / 8 / 3.99 = 1.2176, never;
against GCP's own, 38.864383195 / 88.490000119 = 0.43919.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

H100 = "nvidia-h100-sxm5-80gb"
GCP_1Y, GCP_3Y, GCP_OD, LAMBDA_8X = 61.383674231, 38.864383195, 88.490000119, 31.92


def _q(con, sql: str, params=None) -> list[tuple]:
    return con.execute(sql, params or []).fetchall()


def _cli(data, *argv: str) -> subprocess.CompletedProcess:
    """`gpucost ARGV` on the loaded warehouse, in a subprocess (the session holds a read-only
    connection to it, which another configuration in this process may not open)."""
    env = dict(os.environ, GPUCOST_DATA_DIR=str(data))
    return subprocess.run([sys.executable, "-m", "gpucost.flows.cli", *argv], env=env,
                          capture_output=True, text=True, timeout=120)


def test_commitment_breakeven_of_the_h100_8_gpu_node(loaded) -> None:
    con, *_ = loaded
    rows = _q(con, """
        select pricing_model, term_months, commitment_price_per_gpu_hour,
            commitment_price_per_hour, commitment_provider, commitment_sku,
            commitment_region, on_demand_price_per_gpu_hour, on_demand_provider,
            on_demand_sku, breakeven_utilisation, commitment_beats_on_demand,
            seller_on_demand_price_per_gpu_hour, seller_breakeven_utilisation,
            cast(commitment_observed_at as date)::varchar,
            cast(on_demand_observed_at as date)::varchar
        from commitment_breakeven
        where accelerator_id = ? and gpu_count = 8
        order by term_months""", [H100])
    assert [r[:2] for r in rows] == [("reserved_1y", 12), ("reserved_3y", 36),
                                     ("capacity_block", None)]
    one_year, three_year, block = rows
    # GCP's DWS calendar mode for a3-highgpu-8g, $41.60 per hour on its ~2026-10 page (a
    # capacity block: booked dates, no term): 41.60 / 8 = 5.2 per GPU-hour, 5.2 / 3.99 = 130%
    assert block[2] == pytest.approx(41.60 / 8) and block[4:6] == ("gcp", "a3-highgpu-8g")
    assert block[10] == pytest.approx(41.60 / 8 / 3.99) == pytest.approx(1.30326, abs=1e-5)
    assert block[11] is False
    assert one_year[2] == pytest.approx(GCP_1Y / 8) == pytest.approx(7.672959278875)
    assert one_year[3] == pytest.approx(GCP_1Y)
    assert one_year[4:7] == ("gcp", "a3-highgpu-8g", "us-central1")
    assert one_year[7] == pytest.approx(LAMBDA_8X / 8) == pytest.approx(3.99)
    assert one_year[8:10] == ("lambda", "gpu_8x_h100_sxm5")
    assert one_year[10] == pytest.approx(GCP_1Y / 8 / 3.99) == pytest.approx(1.9230, abs=1e-4)
    assert one_year[11] is False  # never pays against Lambda's on-demand price
    assert one_year[12] == pytest.approx(GCP_OD / 8)
    assert one_year[13] == pytest.approx(GCP_1Y / GCP_OD) == pytest.approx(0.69368, abs=1e-5)
    assert one_year[14:] == ("2026-10-01", "2026-05-07")
    assert three_year[10] == pytest.approx(GCP_3Y / 8 / 3.99) == pytest.approx(1.2176, abs=1e-4)
    assert three_year[13] == pytest.approx(GCP_3Y / GCP_OD) == pytest.approx(0.43919, abs=1e-5)
    # the same size only: the 1-GPU commitments of the load are never set against an 8-GPU
    # on-demand offer, and every compared pair is of one size
    assert _q(con, "select count(*) from commitment_breakeven where gpu_count not in "
                   "(1, 2, 4, 8, 16)") == [(0,)]
    assert _q(con, """
        select count(*) from commitment_breakeven as b
        join gpu_offers as c on c.sku = b.commitment_sku and c.provider = b.commitment_provider
            and c.pricing_model = b.pricing_model
        join gpu_offers as o on o.sku = b.on_demand_sku and o.provider = b.on_demand_provider
            and o.pricing_model = 'on_demand'
        where c.gpu_count <> b.gpu_count or o.gpu_count <> b.gpu_count""") == [(0,)]
    # only dated, fresh, undisputed offers answer (as gpu_prices counts them)
    assert _q(con, "select count(*) from commitment_breakeven where not observed_at_known "
                   "or commitment_provider in ('digitalocean', 'paperspace')") == [(0,)]


def test_gpu_prices_per_pricing_model_and_term(loaded) -> None:
    con, *_ = loaded
    found = dict(_q(con, "select pricing_model, term_months from gpu_prices where "
                         "accelerator_id = ?", [H100]))
    assert found["reserved_1y"] == 12 and found["reserved_3y"] == 36
    assert found["on_demand"] is None and found["spot"] is None
    # one row per accelerator x pricing model: a 1-year and a 3-year price never pooled
    assert _q(con, "select count(*) from (select accelerator_id, pricing_model from gpu_prices "
                   "group by all having count(*) > 1)") == [(0,)]
    [(min_1y,)] = _q(con, "select min_price_per_gpu_hour from gpu_prices where "
                          "accelerator_id = ? and pricing_model = 'reserved_1y'", [H100])
    assert min_1y == pytest.approx(GCP_1Y / 8)
    # the default bases are ranked 1 as before; others only where a new model is sold
    assert _q(con, "select distinct price_basis from price_bases where basis_rank = 1 "
                   "and price_basis not in ('on_demand_min', 'on_demand_median', 'spot_min', "
                   "'community_min', 'reserved_1y_min', 'reserved_3y_min')") == []
    assert _q(con, "select count(*) from price_bases where basis_rank = 3 and pricing_model "
                   "in ('on_demand', 'spot', 'community', 'reserved_1y', 'reserved_3y')") \
        == [(0,)]


def test_offers_h100_8_term_12_lists_the_gcp_cud(loaded) -> None:
    from gpucost.flows.cli.offers import COLUMNS, query_offers

    con, *_, data = loaded
    frame = query_offers(con, "H100:8", term=12)
    assert list(frame.columns) == COLUMNS
    assert set(frame["pricing_model"]) <= {"reserved_1y", "savings_plan_1y"}
    assert set(frame["term_months"]) == {12}
    gcp = frame[frame["sku"] == "a3-highgpu-8g"].iloc[0]
    assert (gcp["provider"], gcp["region"], gcp["pricing_model"]) == ("gcp", "us-central1",
                                                                      "reserved_1y")
    assert gcp["price_per_hour"] == pytest.approx(GCP_1Y)
    assert gcp["price_per_gpu_hour"] == pytest.approx(GCP_1Y / 8)
    # the dated fresh offer first; DigitalOcean's 2025-07 price is listed, marked stale
    assert frame.iloc[0]["sku"] == "a3-highgpu-8g"
    assert frame[frame["provider"] == "digitalocean"]["is_stale"].tolist() == [True]
    # the default listing is on-demand only, as before
    default = query_offers(con, "H100:8")
    assert set(default["pricing_model"]) == {"on_demand"}
    assert default["term_months"].isna().all()

    done = _cli(data, "offers", "H100:8", "--term", "12")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "a3-highgpu-8g" in out and "reserved_1y" in out and "7.673" in out
    assert "12-month commitment (reserved_1y, savings_plan_1y)" in out


def test_rent_vs_buy_shows_each_term_beside_ownership(loaded) -> None:
    """The ownership break-even against the same 8-GPU on-demand offer: capital + hosting
    (paid used or not) / (3.99 - energy per used hour), rent_vs_buy_estimate's figures."""
    con, *_, data = loaded
    [(fixed, energy)] = _q(con, "select tco_capital_usd_per_gpu_hour + hosting_usd_per_gpu_hour,"
                                " energy_usd_per_gpu_hour from rent_vs_buy_estimate(?, 1) "
                                "limit 1", [H100])
    rows = _q(con, "select pricing_model, breakeven_utilisation, owned_breakeven_vs_on_demand, "
                   "owned_breakeven_vs_commitment from commitment_breakeven_estimate(?, 1, "
                   "gpus_per_instance := 8)", [H100])
    assert [r[0] for r in rows] == ["reserved_1y", "reserved_3y", "capacity_block"]
    assert rows[2][1] == pytest.approx(41.60 / 8 / 3.99)
    assert rows[0][1] == pytest.approx(GCP_1Y / 8 / 3.99)
    assert rows[0][2] == pytest.approx(fixed / (3.99 - energy))
    assert rows[0][3] == pytest.approx(fixed / (GCP_1Y / 8 - energy))
    done = _cli(data, "estimate", "rent-vs-buy", "-a", "H100 SXM", "--gpus-per-instance", "8")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "commitments against on-demand offers of the same size (8 GPUs per instance)" in out
    assert "never (192%)" in out and "never (122%)" in out and "never (130%)" in out
    assert "gcp's own on-demand 8-GPU price 11.1 USD/GPU-h: its reserved_1y pays above 69%" \
        in out
    # the cheapest observed rental the ownership answer compares with is unchanged
    assert "cheapest observed rental: 1.8 USD per GPU-hour (community_min, vast)" in out
