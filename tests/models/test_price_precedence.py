"""Issue 37 items 1 and 3 on a small raw DB written by SQL and the fixture catalog: within one
provider the own page outranks a catalog built from it (a disagreement over 25% disputes the
catalog's rows of that sku in every region: listed, never a statistic), and fresh sellers decide
(each seller at its newest price; a seller more than 180 days behind the accelerator's newest
price is stale: listed, counted, never a statistic).

Every price below is a recorded one (../shared/data/prices):
* GCP's pricing page (gcp_gpus-pricing_tables_ewyluda-1e77fb7.html, ~2026-10): a3-highgpu-8g in
  us-central1 on demand 88.49 USD/h = 11.06125 per GPU;
* SkyPilot's GCP catalog of 2026-05-20 (skypilot_format/gcp_vms_2026-05-20.csv): the same
  machine in us-central1-a at 43.0662 (5.383 per GPU, -51.3% against the page), spot 35.8736;
  in europe-west4-a, not on the page, 45.27697; its 4-GPU a3-highgpu-4g, which the page does
  not list, 21.53307 in us-central1-a (5.383 per GPU);
* AWS's p5.48xlarge daily history (aws_price_list/): 55.04 USD/h in us-east-1 on 2026-08-22
  (6.88 per GPU); an older, cheaper observation of the same seller in another region is not its
  newest price;
* RunPod's page of 2026-08-10: H100 SXM 2.99;
* Voltage Park's page of 2025-07-12: 1.99, and CoreWeave's 2023-09-21 grid: 4.76: both more than
  180 days before 2026-10-01, so stale.
The fixture catalog adds a reference price of Lambda's (2.49, 2026-02-01: 242 days before the
newest, stale too). Hand-worked: fresh sellers gcp 11.06125, aws 6.88, runpod 2.99 -> min 2.99
(runpod), median 6.88, n_providers 3, n_providers_stale 3.
"""

from __future__ import annotations

import pytest
from test_models_prices import build_from_raw

from gpucost.models import runner

H100 = "nvidia-h100-sxm5-80gb"

RAW_ROWS_SQL = """
insert into fetches (fetch_id, run_id, source, stream, mode, started_at, finished_at,
                     observed_at, status, sha256, rows_loaded) values
(1, 'r1', 'gcp_pricing_page', 'pricing_page', 'replay', '2026-11-01 00:00+00',
    '2026-11-01 00:01+00', '2026-10-01 00:00+00', 'replayed', 'sha-gcp-page', 1),
(2, 'r1', 'skypilot', 'gcp', 'replay', '2026-11-01 00:00+00', '2026-11-01 00:01+00',
    '2026-05-20 00:00+00', 'replayed', 'sha-sky-gcp', 5),
(3, 'r1', 'aws', 'p5', 'replay', '2026-11-01 00:00+00', '2026-11-01 00:01+00',
    '2026-08-22 00:00+00', 'replayed', 'sha-aws', 1),
(4, 'r1', 'aws', 'sample', 'replay', '2026-11-01 00:00+00', '2026-11-01 00:01+00',
    '2025-09-12 00:00+00', 'replayed', 'sha-aws-old', 1),
(5, 'r1', 'runpod', 'pricing_page', 'replay', '2026-11-01 00:00+00', '2026-11-01 00:01+00',
    '2026-08-10 00:00+00', 'replayed', 'sha-rp', 1),
(6, 'r1', 'voltagepark', 'pricing_page', 'replay', '2026-11-01 00:00+00',
    '2026-11-01 00:01+00', '2025-07-12 00:00+00', 'replayed', 'sha-vp', 1),
(7, 'r1', 'coreweave', 'pricing_page', 'replay', '2026-11-01 00:00+00',
    '2026-11-01 00:01+00', '2023-09-21 00:00+00', 'replayed', 'sha-cw', 1);

insert into price_observations (fetch_id, source, provider, sku, region, pricing_model, os,
    currency, price_per_hour, gpu_name_raw, gpu_count, observed_at) values
(1, 'gcp_pricing_page', 'gcp', 'a3-highgpu-8g', 'us-central1', 'on_demand', 'linux', 'USD',
    88.49, 'H100', 8, '2026-10-01 00:00+00'),
(2, 'skypilot', 'gcp', 'a3-highgpu-8g', 'us-central1-a', 'on_demand', 'linux', 'USD',
    43.0662, 'H100', 8, '2026-05-20 00:00+00'),
(2, 'skypilot', 'gcp', 'a3-highgpu-8g', 'us-central1-a', 'spot', 'linux', 'USD',
    35.8736, 'H100', 8, '2026-05-20 00:00+00'),
(2, 'skypilot', 'gcp', 'a3-highgpu-8g', 'europe-west4-a', 'on_demand', 'linux', 'USD',
    45.27697, 'H100', 8, '2026-05-20 00:00+00'),
(2, 'skypilot', 'gcp', 'a3-highgpu-4g', 'us-central1-a', 'on_demand', 'linux', 'USD',
    21.53307, 'H100', 4, '2026-05-20 00:00+00'),
(3, 'aws', 'aws', 'p5.48xlarge', 'us-east-1', 'on_demand', 'linux', 'USD', 55.04, 'H100', 8,
    '2026-08-22 00:00+00'),
(4, 'aws', 'aws', 'p5.48xlarge', 'us-west-2', 'on_demand', 'linux', 'USD', 31.2, 'H100', 8,
    '2025-09-12 00:00+00'),
(5, 'runpod', 'runpod', 'H100 SXM', '', 'on_demand', 'linux', 'USD', 2.99, 'H100 SXM', 1,
    '2026-08-10 00:00+00'),
(6, 'voltagepark', 'voltagepark', '1x HGX H100', '', 'on_demand', 'linux', 'USD', 1.99, 'H100',
    1, '2025-07-12 00:00+00'),
(7, 'coreweave', 'coreweave', 'hgx-h100', '', 'on_demand', 'linux', 'USD', 4.76, 'H100', 1,
    '2023-09-21 00:00+00');
"""


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    con = build_from_raw(tmp_path_factory.mktemp("price_precedence"), RAW_ROWS_SQL)
    yield con
    con.close()


def test_checks_pass(con) -> None:
    assert runner.run_checks(con) == {}


def test_the_page_disputes_the_catalog_and_the_dispute_is_listed(con) -> None:
    rows = con.execute(
        "select pricing_model, higher_source, higher_region, higher_price_per_gpu_hour, "
        "lower_source, lower_region, lower_price_per_gpu_hour, pct_diff, disputed_offers "
        "from price_disputes where sku = 'a3-highgpu-8g'").fetchall()
    # the page has no spot row: only on demand is compared; 88.49 vs 43.0662 = -51.3%
    assert rows == [("on_demand", "gcp_pricing_page", "us-central1", pytest.approx(88.49 / 8),
                     "skypilot", "us-central1-a", pytest.approx(43.0662 / 8), -51.3, 3)]
    # the catalog's rows of the sku are disputed in every region and pricing model, and stay
    # listed; the page's row is not
    flags = dict(((s, r, m), d) for s, r, m, d in con.execute(
        "select source, region, pricing_model, is_disputed from gpu_offers "
        "where sku = 'a3-highgpu-8g'").fetchall())
    # the catalog's 4-GPU shape, which the page does not list, is compared with the page's
    # price of the part there, per GPU: 21.53307 / 4 = 5.383 against 11.06, -51.3%
    assert con.execute("select higher_sku, compared_by, pct_diff from price_disputes "
                       "where sku = 'a3-highgpu-4g'").fetchall() == [
        ("a3-highgpu-8g", "part", -51.3)]
    assert flags == {("gcp_pricing_page", "us-central1", "on_demand"): False,
                     ("skypilot", "us-central1-a", "on_demand"): True,
                     ("skypilot", "us-central1-a", "spot"): True,
                     ("skypilot", "europe-west4-a", "on_demand"): True}


def test_disputed_rows_are_never_a_statistic_or_a_basis(con) -> None:
    # GCP spot is known only from the disputed catalog: no spot statistics, no spot basis
    assert con.execute("select count(*) from gpu_prices where accelerator_id = ? and "
                       "pricing_model = 'spot' and n_providers > 0", [H100]).fetchone() == (0,)
    assert con.execute("select count(*) from price_bases where accelerator_id = ? and "
                       "price_basis = 'spot_min'", [H100]).fetchone() == (0,)
    [(price, sku, source)] = con.execute(
        "select price_per_gpu_hour, sku, source from seller_prices where accelerator_id = ? "
        "and pricing_model = 'on_demand' and seller = 'gcp'", [H100]).fetchall()
    assert (price, sku, source) == (pytest.approx(11.06125), "a3-highgpu-8g", "gcp_pricing_page")


def test_fresh_sellers_decide(con) -> None:
    [(n, stale, undated, low, median, cheapest, providers)] = con.execute(
        "select n_providers, n_providers_stale, n_providers_undated, min_price_per_gpu_hour, "
        "median_price_per_gpu_hour, cheapest_seller, providers from gpu_prices "
        "where accelerator_id = ? and pricing_model = 'on_demand'", [H100]).fetchall()
    assert (n, stale, undated) == (3, 3, 0)
    assert (low, median, cheapest) == (2.99, pytest.approx(6.88), "runpod")
    assert providers == ("aws, gcp, runpod, coreweave (stale), lambda (stale), "
                         "voltagepark (stale)")
    # AWS stands at its newest price (us-east-1, 2026-08-22), not the older, cheaper one
    [(price, region)] = con.execute(
        "select price_per_gpu_hour, region from seller_prices where accelerator_id = ? and "
        "pricing_model = 'on_demand' and seller = 'aws'", [H100]).fetchall()
    assert (price, region) == (pytest.approx(6.88), "us-east-1")
    # the stale offers are listed, marked
    stale_offers = {s for (s,) in con.execute(
        "select source from gpu_offers where is_stale order by source").fetchall()}
    # aws: its 2025-09 row; reference: the fixture's Lambda 2.49 and AWS reserved of 2026-02
    assert stale_offers == {"aws", "coreweave", "voltagepark", "reference"}
    # and the basis at 8 GPUs is the cheapest fresh 8-GPU seller (aws 6.88; the disputed
    # catalog's 5.38 never)
    [(basis, provider)] = con.execute(
        "select price_per_gpu_hour, provider from price_bases_by_size where accelerator_id = ? "
        "and price_basis = 'on_demand_min' and min_gpus_per_instance = 8", [H100]).fetchall()
    assert (basis, provider) == (pytest.approx(6.88), "aws")
