"""commitment_breakeven, gpu_prices' term_months and the bases of the other ways of selling,
on a small raw layer written by SQL (tests/models/test_models_prices.py's build_from_raw) with
the pricing models the recorded files do not hold yet (reserved_6m, queued, capacity_block).

Every figure is per GPU-hour = the instance price / 8 (or / 1):
* gcp a3-highgpu-8g: on-demand 88.0 (11.0), reserved_1y 60.0 (7.5), queued 38.0 (4.75),
  capacity_block 41.6 (5.2);
* crusoe 8x: reserved_6m 20.0 (2.5), reserved_1y 17.6 (2.2); crusoe 1x on-demand 3.9;
* lambda (SkyPilot): 8x on-demand 24.0 (3.0), 1x on-demand 2.49;
* shadeform resells crusoe's 8x reserved_1y at 16.0 (2.0): the same seller, counted once, at
  its own listing (2.2).
The fixture catalog's reference prices add aws p5.48xlarge (on-demand 12.29, reserved_1y 8.0
per GPU). So at 8 GPUs: reserved_6m 2.5 / 3.0 = 0.8333; reserved_1y 2.2 / 3.0 = 0.7333 (3
sellers: aws, gcp, crusoe); capacity_block 5.2 / 3.0 = 1.7333 (never), against gcp's own
11.0: 0.4727; queued is no commitment (paid only while it runs): no row. At 1 GPU there is
no commitment: the 1-GPU on-demand offers are never set against an 8-GPU commitment.
"""

from __future__ import annotations

import pytest

from tests.models.test_models_prices import H100, build_from_raw

T = "'2026-03-01 00:00+00'"
RAW = f"""
insert into fetches (fetch_id, run_id, source, stream, mode, started_at, finished_at,
                     observed_at, status, sha256, rows_loaded) values
(1, 'r1', 'gcp_pricing_page', 'page', 'replay', {T}, {T}, {T}, 'replayed', 'sha-gcp', 4),
(2, 'r1', 'crusoe', 'page', 'replay', {T}, {T}, {T}, 'replayed', 'sha-crusoe', 3),
(3, 'r1', 'skypilot', 'lambda', 'replay', {T}, {T}, {T}, 'replayed', 'sha-lambda', 2),
(4, 'r1', 'skypilot', 'shadeform', 'replay', {T}, {T}, {T}, 'replayed', 'sha-shade', 1);

insert into price_observations (fetch_id, source, provider, sku, region, pricing_model, os,
    currency, price_per_hour, gpu_name_raw, gpu_count, observed_at) values
(1, 'gcp_pricing_page', 'gcp', 'a3-highgpu-8g', 'us-central1', 'on_demand', 'linux', 'USD',
    88.0, 'H100 SXM', 8, {T}),
(1, 'gcp_pricing_page', 'gcp', 'a3-highgpu-8g', 'us-central1', 'reserved_1y', 'linux', 'USD',
    60.0, 'H100 SXM', 8, {T}),
(1, 'gcp_pricing_page', 'gcp', 'a3-highgpu-8g', 'us-central1', 'queued', 'linux', 'USD',
    38.0, 'H100 SXM', 8, {T}),
(1, 'gcp_pricing_page', 'gcp', 'a3-highgpu-8g', 'us-central1', 'capacity_block', 'linux',
    'USD', 41.6, 'H100 SXM', 8, {T}),
(2, 'crusoe', 'crusoe', 'h100-sxm-8x', '', 'reserved_6m', 'linux', 'USD', 20.0, 'H100 SXM', 8,
    {T}),
(2, 'crusoe', 'crusoe', 'h100-sxm-8x', '', 'reserved_1y', 'linux', 'USD', 17.6, 'H100 SXM', 8,
    {T}),
(2, 'crusoe', 'crusoe', 'h100-sxm-1x', '', 'on_demand', 'linux', 'USD', 3.9, 'H100 SXM', 1,
    {T}),
(3, 'skypilot', 'lambda', 'gpu_8x_h100_sxm5', 'us-east-1', 'on_demand', 'linux', 'USD', 24.0,
    'H100 SXM', 8, {T}),
(3, 'skypilot', 'lambda', 'gpu_1x_h100_sxm5', 'us-east-1', 'on_demand', 'linux', 'USD', 2.49,
    'H100 SXM', 1, {T}),
(4, 'skypilot', 'shadeform', 'crusoe_h100x8', 'us-east', 'reserved_1y', 'linux', 'USD', 16.0,
    'H100 SXM', 8, {T});
"""


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    con = build_from_raw(tmp_path_factory.mktemp("commitments"), RAW)
    yield con
    con.close()


def _q(con, sql: str, params=None) -> list[tuple]:
    return con.execute(sql, params or []).fetchall()


def test_each_commitment_against_on_demand_of_the_same_size(con) -> None:
    rows = _q(con, """
        select gpu_count, pricing_model, term_months, n_commitment_sellers,
            commitment_seller, commitment_provider, commitment_price_per_gpu_hour,
            on_demand_seller, on_demand_price_per_gpu_hour, breakeven_utilisation,
            commitment_beats_on_demand, seller_breakeven_utilisation
        from commitment_breakeven where accelerator_id = ?""", [H100])
    assert [r[:3] for r in rows] == [(8, "reserved_6m", 6), (8, "reserved_1y", 12),
                                     (8, "capacity_block", None)]
    six, year, block = rows
    assert six[3:9] == (1, "crusoe", "crusoe", 2.5, "lambda", 3.0)
    assert six[9] == pytest.approx(2.5 / 3.0) and six[10] is True and six[11] is None
    # crusoe counted once, at its own listing (2.2), not at shadeform's resale (2.0)
    assert year[3:9] == (3, "crusoe", "crusoe", pytest.approx(2.2), "lambda", 3.0)
    assert year[9] == pytest.approx(2.2 / 3.0)
    assert block[4:9] == ("gcp", "gcp", pytest.approx(5.2), "lambda", 3.0)
    assert block[9] == pytest.approx(5.2 / 3.0) and block[10] is False
    assert block[11] == pytest.approx(5.2 / 11.0)


def test_gpu_prices_term_months_and_bases_of_every_way_of_selling(con) -> None:
    found = dict(_q(con, "select pricing_model, term_months from gpu_prices "
                         "where accelerator_id = ?", [H100]))
    assert found == {"on_demand": None, "reserved_6m": 6, "reserved_1y": 12, "queued": None,
                     "capacity_block": None}
    bases = dict(_q(con, "select price_basis, basis_rank from price_bases "
                         "where accelerator_id = ? and basis_rank is not null", [H100]))
    assert bases["on_demand_min"] == 1 and bases["reserved_1y_min"] == 1
    assert bases["reserved_6m_min"] == bases["queued_min"] == bases["capacity_block_min"] == 3
    # the default answers never take a rank-3 basis while a rank-1 one exists: the
    # ownership comparison lists the default bases only
    listed = {r[0] for r in _q(con, "select rental_price_basis from "
                                    "rent_vs_buy_estimate(?, 1)", [H100])}
    assert "queued_min" not in listed and "capacity_block_min" not in listed
