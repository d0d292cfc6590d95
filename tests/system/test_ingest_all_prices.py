"""Acceptance of the price coverage work: every recorded price file in ../shared/data/prices
ingested (read in place) into one module-scoped warehouse, rebuilt once, then the marts.

The fixture times the whole ingest + rebuild (the acceptance bound is 60 s on a 2-core
machine).
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import duckdb
import pytest

from gpucost.flows.ingest import ingest_files
from gpucost.flows.steps import build_and_publish
from gpucost.warehouse.gates import Gates

PRICES = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "prices"

# source -> recorded files it reads
FILES = {
    "aws": ["aws_price_list/*.csv", "aws_price_list/*.json"],
    "azure": ["azure_retail_api/*.json"],
    "skypilot": ["skypilot_format/*.csv"],
    "lambda": ["pricing_pages_html/lambda/*.html"],
    "runpod": ["pricing_pages_html/runpod/*.html"],
    "crosscheck": ["curated_tables/*.csv", "curated_tables/*.json"],
    "gpuhunt": ["gpuhunt_resources/*.json"],
}
# recorded files that are refused by design (no price in them)
REFUSED = {
    "ec2_offer_file_sample_20250912225308.csv": "EmptyPayloadError",  # its GPU row is SUSE
    "ec2_version_index_sample.json": "EmptyPayloadError",              # navigation only
    "offers_service_index_sample.json": "EmptyPayloadError",
    "lambda_vms_2026-05-07_failed_run_header_only.csv": "EmptyPayloadError",
    # every GPU row refused: placeholder prices, converted currency
    "mithril_vms_1f9eb0c.csv": "EmptyPayloadError",
    "alicloud_vms_003c56a_first134lines.csv": "EmptyPayloadError",
    # the recorded 2026 page is an excerpt holding one tab (8x: 5 offers) against the 2024
    # page's 17: the row-count guard refuses it as the newest payload of the stream until
    # the operator says `--force` (the fixture then does, below)
    "lambda_pricing_20260109103934.html": "RowCountCollapseError",
}
FORCED = ("lambda", "pricing_pages_html/lambda/lambda_pricing_20260109103934.html")
H100 = "nvidia-h100-sxm5-80gb"


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory, request):
    if not PRICES.is_dir():
        request.getfixturevalue("shared_data")  # skips, or fails under CI
    data = tmp_path_factory.mktemp("all_prices")
    outcomes = {}
    start = time.perf_counter()
    for source, patterns in FILES.items():
        files = sorted(f for p in patterns for f in PRICES.glob(p))
        for path, outcome in zip(files, ingest_files(source, files, data_dir=data,
                                                     rebuild=False)[0], strict=True):
            outcomes[path.name] = outcome
    [forced], _ = ingest_files(FORCED[0], [PRICES / FORCED[1]], data_dir=data, rebuild=False,
                               force=True)
    published = build_and_publish(data)
    seconds = time.perf_counter() - start
    con = duckdb.connect(str(data / "gpucost.duckdb"), read_only=True)
    con.execute(f"attach '{data / 'raw.duckdb'}' as raw (read_only)")
    yield con, outcomes, seconds, published
    con.close()
    shutil.rmtree(data, ignore_errors=True)


def _q(con, sql: str, params=None) -> list[tuple]:
    return con.execute(sql, params or []).fetchall()


def test_every_recorded_price_file_ingests_within_a_minute(warehouse) -> None:
    con, outcomes, seconds, published = warehouse
    [(status, rows)] = _q(con, "select status, rows_loaded from raw.fetches where source = "
                               "'lambda' and payload_name like 'lambda_pricing_2026%' "
                               "and status <> 'failed'")
    assert (status, rows) == ("replayed", 5)  # loaded with --force
    assert len(outcomes) == 45
    refused = {name: o.error_type for name, o in outcomes.items() if o.status == "failed"}
    assert refused == REFUSED
    assert all(o.status == "replayed" for n, o in outcomes.items() if n not in REFUSED)
    assert published.mart_rows["gpu_offers"] > 6000
    assert seconds < 60, f"ingest + rebuild took {seconds:.1f} s"


def test_h100_prices_from_at_least_12_providers(warehouse) -> None:
    con = warehouse[0]
    n_first_hand, n_undated, n_crosscheck, n_listed, providers, median = _q(
        con, "select n_providers, n_providers_undated, n_providers_crosscheck, "
             "n_providers_listed, providers, median_price_per_gpu_hour from gpu_prices "
             "where accelerator_id = ? and pricing_model = 'on_demand'", [H100])[0]
    assert n_listed >= 12 and n_listed == n_first_hand + n_undated + n_crosscheck
    sellers = providers.split(", ")
    dated = [p for p in sellers if "(" not in p]
    undated = [p.removesuffix(" (undated)") for p in sellers if p.endswith(" (undated)")]
    # checked by hand against the recorded files: nebius 2.95 (gpu-h100-sxm_1gpu), hyperstack
    # 2.40 (n3-H100-SXM5x8 19.2 / 8), hyperbolic 1.29, fluidstack 2.99 (NVLINK 8x 23.92 / 8);
    # mithril (placeholder 1.00) and scaleway / seeweb (EUR) are not among them. Sellers are
    # counted once: Prime Intellect and Shadeform resell lambda, hyperstack, datacrunch (Verda),
    # nebius...; Lium's hosts are community capacity. The statistics rest on the dated sellers:
    # the SkyPilot catalogs named by a commit hash state no date
    assert dated == ["aws", "azure", "gcp", "lambda", "oracle", "runpod"]
    assert undated == ["cudo", "datacrunch", "dc_roan", "digitalocean", "fluidstack",
                       "hyperbolic", "hyperstack", "nebius", "paperspace", "primecompute"]
    assert not {"primeintellect", "shadeform", "lium", "verda"} & set(dated + undated)
    cheapest = dict(_q(con, "select provider, min(price_per_gpu_hour) from gpu_offers "
                            "where accelerator_id = ? and source = 'skypilot' "
                            "group by provider, pricing_model having pricing_model = 'on_demand'",
                       [H100]))
    assert (cheapest["nebius"], cheapest["hyperstack"], cheapest["hyperbolic"],
            cheapest["fluidstack"]) == (2.95, 2.4, 1.29, 2.99)
    assert _q(con, "select min(price_per_gpu_hour) from gpu_offers where provider = 'nebius' "
                   "and source = 'skypilot' and pricing_model = 'spot' "
                   "and accelerator_id = ?", [H100]) == [(1.25,)]
    assert _q(con, "select count(*) from gpu_offers where provider = 'mithril'") == [(0,)]
    assert set(_q(con, "select distinct currency from gpu_offers "
                       "where provider in ('scaleway', 'seeweb') and source = 'skypilot'")) == {
        ("EUR",)}
    # the statistics come from dated first-hand (and reference) prices only, one per seller
    expected = _q(con, "select quantile_cont(p, 0.5) from (select seller, min(price_per_gpu_hour)"
                       " as p from gpu_offers where accelerator_id = ? and pricing_model = "
                       "'on_demand' and source_kind <> 'crosscheck' and currency = 'USD' "
                       "and observed_at_known group by seller)", [H100])[0][0]
    assert median == pytest.approx(expected)


def test_at_least_97_5_percent_of_gpu_rows_map(warehouse) -> None:
    """98.1 % mapped before the 22 new SkyPilot catalogs (2026-11); they added names that do
    not say the part (Cudo/Verda V100, Jarvislabs/Seeweb H100: PCIe or SXM?) and the A800.
    Issue 37 item 4 maps them: the A800 has its row, and a name without its form takes the
    lower-rated form (PCIe), never an overstated throughput, with the assumption in the alias
    note (docs/sources.md, "Names left unmapped"). Measured before: 13,993 of 14,327 (97.67 %)."""
    con = warehouse[0]
    total, mapped = _q(con, "select sum(offer_days), sum(offer_days_mapped) "
                            "from gpu_name_coverage")[0]
    assert mapped / total >= 0.975, f"{mapped}/{total} = {mapped / total:.4f}"
    # the rest is listed by name, with its count and source
    listed = _q(con, "select sum(offer_days) from unmapped_gpu_names")[0][0]
    assert listed == total - mapped
    # the Azure M60 (issue 37 item 4) now maps; Azure's RTX PRO 6000 BSE sizes stay listed:
    # no GPU count per size, so no per-GPU price
    bse = _q(con, "select source, provider, reason from unmapped_gpu_names "
                  "where gpu_name_raw = 'RTXPRO6000BSE'")
    assert bse and bse[0] == ("azure", "azure", "gpu_count_unknown")
    # Vast's bare names are read from its sku, which keeps the form factor (8x-H100_SXM-...)
    assert _q(con, "select count(*) from unmapped_gpu_names where provider = 'vast' "
                   "and gpu_name_raw in ('H100', 'A100', 'V100')")[0][0] == 0


def test_runpod_secure_and_community_are_separate_models(warehouse) -> None:
    con = warehouse[0]
    h200 = dict(_q(con, "select pricing_model, price_per_gpu_hour from price_history "
                        "where provider = 'runpod' and accelerator_id = 'nvidia-h200-sxm-141gb' "
                        "and day = date '2025-09-09'"))
    assert h200 == {"on_demand": 3.79, "community": 3.59}
    l4 = dict(_q(con, "select pricing_model, price_per_gpu_hour from gpu_offers "
                      "where source = 'runpod' and sku = 'L4'"))
    assert l4 == {"community": 0.44, "on_demand": 0.39}  # community above secure, as published
    assert _q(con, "select count(*) from gpu_offers where source = 'runpod' "
                   "and pricing_model = 'spot'") == [(0,)]


def test_price_changes_lists_the_aws_p5_cut(warehouse) -> None:
    con = warehouse[0]
    rows = _q(con, "select sku, region, old_price_per_hour, new_price_per_hour, "
                   "round(change_pct, 2), cast(changed_on as varchar), accelerator_id, "
                   "old_price_per_gpu_hour, new_price_per_gpu_hour "
                   "from price_changes where source = 'aws'")
    assert rows == [("p5.48xlarge", "us-east-1", 98.32, 55.04, -44.02, "2025-06-05", H100,
                     12.29, 6.88)]
    days = _q(con, "select count(*) from price_history where provider = 'aws' "
                   "and accelerator_id = ?", [H100])[0][0]
    assert days == 486  # one row per recorded day


def test_the_two_dated_recordings_show_up_as_changes(warehouse) -> None:
    con = warehouse[0]
    lam = _q(con, "select distinct old_price_per_hour, new_price_per_hour, "
                  "cast(changed_on as varchar) from price_changes where source = 'skypilot' "
                  "and provider = 'lambda' and sku = 'gpu_8x_h100_sxm5'")
    assert lam == [(27.52, 31.92, "2026-05-07")]
    assert _q(con, "select count(distinct sku) from price_changes where source = 'skypilot' "
                   "and provider = 'lambda'")[0][0] == 15
    gcp = _q(con, "select count(*), count(*) filter (where pricing_model = 'spot') "
                  "from price_changes where provider = 'gcp' and changed_on = '2026-05-20'")[0]
    assert gcp[0] > 100 and gcp[1] >= 0.9 * gcp[0]  # spot moves, on-demand mostly stays
    azure = _q(con, "select count(*) from price_changes where source = 'azure' "
                    "and region = 'eastus2' and changed_on = '2026-07-14'")[0][0]
    assert azure >= 1


def test_gates_refused_the_tpu_placeholder_prices(warehouse) -> None:
    con = warehouse[0]
    # the skypilot parser refuses them first: one instance price for 3+ slice sizes
    rows = _q(con, "select detail from raw.rejects where reason = 'placeholder_price' "
                   "and detail like 'tpu-%'")
    assert rows and all(r[0].startswith("tpu-v6e-") for r in rows)
    assert any(r[0].startswith("tpu-v6e-1 ") and ": 700.0 " in r[0] for r in rows)
    assert _q(con, "select count(*) from raw.rejects where reason = 'price_out_of_band' "
                   "and detail like '%tpu-v6e%: 700 USD%'") == [(0,)]
    assert _q(con, "select count(*) from gpu_offers where sku = 'tpu-v6e-1' "
                   "and price_per_hour = 700") == [(0,)]


def test_crosscheck_never_becomes_a_price_basis(warehouse) -> None:
    con = warehouse[0]
    crosscheck_only = {r[0] for r in _q(
        con, "select distinct provider from gpu_offers where source_kind = 'crosscheck' "
             "except select distinct provider from gpu_offers where source_kind <> 'crosscheck'")}
    assert "crusoe" in crosscheck_only  # nebius is first-hand (skypilot) now
    basis_providers = {r[0] for r in _q(con, "select distinct provider from cost_per_flop "
                                             "where provider is not null")}
    assert not basis_providers & crosscheck_only
    # CoreWeave's own page gives one reference price (GB200 NVL72, catalog/reference_prices.csv);
    # its crosscheck rows (H100, A100...) still price nothing
    coreweave = _q(con, "select distinct accelerator_id, source from price_bases "
                        "where provider = 'coreweave'")
    assert coreweave == [("nvidia-gb200-186gb", "reference")]
    verdicts = dict(_q(con, "select verdict, count(*) from price_crosscheck group by 1"))
    assert set(verdicts) == {"agrees", "disagrees", "no_first_hand_price"}
    oci = _q(con, "select verdict, compared_by from price_crosscheck where provider = 'oracle' "
                  "and sku = 'BM.GPU.H100.8'")
    assert oci == [("agrees", "sku")]


def test_load_time_mapping_agrees_with_the_sql_mapping(warehouse) -> None:
    con = warehouse[0]
    gates = Gates.from_catalog()
    rows = _q(con, "select distinct provider, sku, gpu_name_raw, accelerator_id from gpu_offers "
                   "where source <> 'reference'")
    assert len(rows) > 800
    differ = [r for r in rows if gates.accelerator_of(r[0], r[1], r[2]) != r[3]]
    assert differ == []


def test_price_answers_after_every_recorded_file(warehouse) -> None:
    """Issue "Price answers", acceptance on every recorded price file."""
    con, *_ = warehouse
    # no price basis of any kind (observed or estimated) derives from a cross-check row
    assert _q(con, "select count(*) from price_bases where source = 'crosscheck'") == [(0,)]
    kinds = dict(_q(con, "select basis_kind, count(*) from price_bases group by 1"))
    assert kinds["observed"] > 0 and kinds["estimated"] > 0 and kinds["owned"] > 0
    # no TPU v6e offer at SkyPilot's 700 placeholder
    assert _q(con, "select count(*) from gpu_offers where sku ilike 'tpu-v6e%' "
                   "and price_per_hour = 700") == [(0,)]
    # MI25 on-demand minimum per GPU is a whole-GPU price: NV32as_v4 (1 MI25) at 1.864;
    # SkyPilot lists NV4as_v4 (1/8 of one) at 0.233 as "1 GPU"
    assert _q(con, "select min_price_per_gpu_hour, cheapest_sku from gpu_prices where "
                   "accelerator_id = 'amd-mi25-16gb' and pricing_model = 'on_demand'") == [
        (1.864, "Standard_NV32as_v4")]
    # no retired promotional size in any price statistic
    assert _q(con, "select count(*) from gpu_offers where sku ilike '%promo%'") == [(0,)]
    # Lambda's 8x H100 SXM on-demand offer in force is May's (3.99 through SkyPilot), not
    # January's 2.99 from Lambda's own page
    rows = _q(con, "select distinct source, price_per_gpu_hour, cast(observed_at as date) "
                   "from gpu_offers where provider = 'lambda' and accelerator_id = ? "
                   "and gpu_count = 8 and pricing_model = 'on_demand'", [H100])
    assert [(s, p, str(d)) for s, p, d in rows] == [("skypilot", 3.99, "2026-05-07")]
    # every price answer names its payload
    assert _q(con, "select count(*) from gpu_prices where min_price_per_gpu_hour is not null "
                   "and (source is null or sku is null)") == [(0,)]
    assert _q(con, "select count(*) from cost_per_flop where price_basis not in "
                   "('purchase', 'on_demand_median') and (source is null or sku is null "
                   "or (fetch_id is null and source <> 'reference'))") == [(0,)]


def test_spot_equal_to_on_demand_is_flagged(warehouse) -> None:
    """SkyPilot's Azure catalog repeats the on-demand price as the spot price of the ND H200
    v5 (centralus: 95.824 both): no spot discount, flagged rather than accepted silently."""
    con, *_ = warehouse
    assert _q(con, "select anomaly, spot_price_per_hour, on_demand_price_per_hour "
                   "from price_anomalies where sku = 'Standard_ND96isr_H200_v5' "
                   "and region = 'centralus'") == [("spot_equals_on_demand", 95.824, 95.824)]


def test_offers_answer_from_first_hand_prices(warehouse) -> None:
    """`gpucost offers H100` (flows/cli/offers.py) on every recorded price file."""
    from gpucost.flows.cli.explain import explain_fetch
    from gpucost.flows.cli.offers import COLUMNS, query_offers

    con, *_ = warehouse
    frame = query_offers(con, "H100")
    assert list(frame.columns) == COLUMNS and len(frame) > 20
    assert set(frame["source_kind"]) == {"first_hand"}
    assert set(frame["accelerator_id"]) <= {"nvidia-h100-sxm5-80gb", "nvidia-h100-pcie-80gb",
                                            "nvidia-h100-nvl-94gb"}
    # dated offers first, each block cheapest first
    known = frame["observed_at_known"].tolist()
    assert known == sorted(known, reverse=True) and False in known
    dated = frame[frame["observed_at_known"]]["price_per_gpu_hour"].tolist()
    undated = frame[~frame["observed_at_known"]]["price_per_gpu_hour"].tolist()
    assert dated == sorted(dated) and undated == sorted(undated)
    lam = query_offers(con, "H100:8", provider="lambda")
    # one row per provider x sku: the cheapest of SkyPilot's 17 Lambda regions, all at 3.99
    assert list(zip(lam["sku"], lam["price_per_gpu_hour"], lam["n_regions"],
                    strict=True)) == [("gpu_8x_h100_sxm5", 3.99, 17)]
    assert lam["source_url"][0].startswith("https://raw.githubusercontent.com/skypilot-org/")
    with_cc = query_offers(con, "H100", include_crosscheck=True)
    assert "crosscheck" in set(with_cc["source_kind"]) and len(with_cc) > len(frame)
    # the fetch behind the cheapest H100 SXM price names its raw payload
    [(fetch_id, source, sku)] = _q(con, "select fetch_id, source, sku from gpu_prices where "
                                        "accelerator_id = ? and pricing_model = 'on_demand'",
                                   [H100])
    found = explain_fetch(con, fetch_id)
    assert found["source"] == source and found["payload_path"].startswith(f"raw/{source}/")
    assert found["offers_in_force"] > 0 and found["rows_loaded"] > 0
    # the intermediate relations are published for tracing
    assert _q(con, "select count(*) from intermediate.int_offers_mapped where sku = ?",
              [sku])[0][0] >= 1
