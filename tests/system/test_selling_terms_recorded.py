"""Issue 41 item 1 on the documented load (every recorded file, tests/system/conftest.py
`loaded`): every way compute is sold reaches the marts as its own pricing model.

Figures read by hand from the recorded payloads (../shared/data, read in place):

* Crusoe's page of 2025-05-21 (pricing_pages_html/crusoe/crusoe_cloud-pricing_20250521220413
  .html), row "NVIDIA H100 80GB SXM": "$ 3.90 /hr" on demand, "Contact Sales" spot, "$ 3.12
  /hr" 6-month, "$ 2.93 /hr" 1-year and "$ 2.54 /hr" 3-year reserved, per GPU-hour.
* GCP's page (pricing_pages_html/gcp/gcp_gpus-pricing_tables_ewyluda-1e77fb7.html, dated
  ~2026-10 by its README), row a3-highgpu-8g: "$88.490000119 / 1 hour" price, "$38.3200/ 1
  hour" DWS flex-start, "$41.6000/ 1 hour" DWS calendar mode.
* AWS Capacity Blocks (aws_capacity_blocks/aws_capacity_blocks_pricing_2026-01-31.json, its
  README's expected values): p5.48xlarge us-east-1 31.464 per instance-hour = 3.933 per
  GPU-hour; the GB200 UltraServer u-p6e-gb200x72 prints its per-GPU rate 10.582 (0.0 per
  accelerator): 72 x 10.582 = 761.904 per UltraServer-hour, in the Dallas Local Zone.
* Azure eastus2 2026-07-14 (azure_retail_api/eastus2_..._2026-07-14.json):
  Standard_NC48ads_A100_v4 savingsPlan "1 Year" 6.1148104, "3 Years" 4.5317474.
"""

from __future__ import annotations

H100 = "nvidia-h100-sxm5-80gb"


def _q(con, sql: str, params=None) -> list[tuple]:
    return con.execute(sql, params or []).fetchall()


def test_crusoe_h100_terms_in_price_history(loaded):
    con = loaded[0]
    rows = _q(con, "select pricing_model, term_months, price_per_gpu_hour, payment "
                   "from price_history where provider = 'crusoe' and accelerator_id = ? "
                   "and day = date '2025-05-21' order by pricing_model", [H100])
    assert rows == [("on_demand", None, 3.90, None), ("reserved_1y", 12, 2.93, None),
                    ("reserved_3y", 36, 2.54, None), ("reserved_6m", 6, 3.12, None)]


def test_gcp_dws_prices_are_queued_and_capacity_block_offers(loaded):
    con = loaded[0]
    rows = dict(_q(con, "select pricing_model, round(price_per_hour, 2) from gpu_offers "
                        "where source = 'gcp_pricing_page' and sku = 'a3-highgpu-8g'"))
    assert (rows["queued"], rows["capacity_block"], rows["on_demand"]) == (38.32, 41.60, 88.49)
    # never on demand: the page's only on-demand offer of the shape is the 88.49 list price
    assert _q(con, "select price_per_hour from gpu_offers where source = 'gcp_pricing_page' "
                   "and sku = 'a3-highgpu-8g' and pricing_model = 'on_demand'") == [
        (88.490000119,)]
    [(n_queued, n_calendar, terms)] = _q(
        con, "select count(*) filter (pricing_model = 'queued'), "
             "count(*) filter (pricing_model = 'capacity_block'), "
             "count(term_months) from gpu_offers where source = 'gcp_pricing_page' "
             "and pricing_model in ('queued', 'capacity_block')")
    assert (n_queued, n_calendar, terms) == (19, 4, 0)  # no commitment length


def test_aws_capacity_blocks_from_the_recorded_table(loaded):
    con = loaded[0]
    [(n, models, observed)] = _q(
        con, "select count(*), string_agg(distinct pricing_model, ','), "
             "strftime(max(observed_at) at time zone 'UTC', '%Y-%m-%d %H:%M:%S') "
             "from gpu_offers where source = 'aws_capacity_blocks'")
    assert (n, models, observed) == (60, "capacity_block", "2026-01-31 14:16:57")
    [(price, per_gpu, accelerator)] = _q(
        con, "select price_per_hour, price_per_gpu_hour, accelerator_id from gpu_offers "
             "where source = 'aws_capacity_blocks' and sku = 'p5.48xlarge' "
             "and region = 'us-east-1'")
    assert (price, round(per_gpu, 3), accelerator) == (31.464, 3.933, H100)
    [(price, per_gpu, region, kind)] = _q(
        con, "select price_per_hour, price_per_gpu_hour, region, price_kind from gpu_offers "
             "where source = 'aws_capacity_blocks' and sku = 'u-p6e-gb200x72'")
    assert (round(price, 3), round(per_gpu, 3), region, kind) == (
        761.904, 10.582, "us-east-1-dfw-2a", "shape_per_gpu")


def test_azure_savings_plans_and_term_months(loaded):
    con = loaded[0]
    rows = dict(_q(con, "select pricing_model, price_per_hour from gpu_offers "
                        "where source = 'azure' and sku = 'Standard_NC48ads_A100_v4' "
                        "and region = 'eastus2' and pricing_model like 'savings_plan%'"))
    assert rows == {"savings_plan_1y": 6.1148104, "savings_plan_3y": 4.5317474}
    assert _q(con, "select distinct pricing_model, term_months from gpu_offers "
                   "where term_months is not null order by 1") == [
        ("reserved_1y", 12), ("reserved_3y", 36), ("savings_plan_1y", 12),
        ("savings_plan_3y", 36)]
