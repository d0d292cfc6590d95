"""The change feed: `exports/price_changes.json`, a JSON Feed 1.1
(https://jsonfeed.org/version/1.1) of the latest price changes, for readers that poll.

Written with the other exports of every publish into its snapshot folder
(`exports/snapshots/<publish_id>/price_changes.json`, read at `exports/latest/price_changes.json`
or the link `exports/price_changes.json`; warehouse/exports.py), from the build's
`price_changes` mart. One item per
source x provider x sku x pricing model x day x old -> new price: a change listed in many
regions at once (SkyPilot's Lambda catalog writes every type into all 17 regions) is one item
naming its regions. Newest first (changed_on, then observed_at), the FEED_ITEMS newest only.

Each item:
- id: `gpucost:price-change:<source>/<provider>/<sku>/<pricing_model>/<changed_on>/<old>-><new>`
  (figures as the mart holds them): the same change has the same id in every publish, so a
  reader shows it once however often it polls;
- title: accelerator (or the sku when unmapped), seller, sku, old -> new USD per GPU-hour
  (per instance when the GPU count is unknown or fractional), change in %;
- date_published: when the new price was observed (the latest observed_at of the item's rows,
  RFC 3339, UTC);
- url: the source URL of the offer in force for the same source, provider, sku and pricing
  model (gpu_offers.source_url), else that of any offer in force from the same source and
  provider; left out when there is none;
- content_text: the regions, whole-instance prices and the previous observation day;
- `_gpucost`: the figures as data (a JSON Feed extension object).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FEED_NAME = "price_changes.json"
FEED_ITEMS = 200  # the newest changes listed; a reader that polls daily misses none

FEED_SQL = """
with

-- the newest FEED_ITEMS items lie within the FEED_ITEMS newest days with a change: only
-- those days are grouped (the mart grows with the whole history)
recent_days as (

    select distinct changed_on
    from price_changes
    order by changed_on desc
    limit $limit

),

changes as (

    select
        changes.source,
        changes.provider,
        changes.sku,
        changes.pricing_model,
        changes.changed_on,
        changes.previous_day,
        changes.currency,
        changes.accelerator_id,
        changes.gpu_count,
        changes.old_price_per_hour,
        changes.new_price_per_hour,
        changes.old_price_per_gpu_hour,
        changes.new_price_per_gpu_hour,
        changes.change_pct,
        list(distinct coalesce(nullif(changes.region, ''), '-')
             order by coalesce(nullif(changes.region, ''), '-')) as regions,
        max(changes.observed_at) as observed_at
    from price_changes as changes
    where changes.changed_on >= (select min(recent_days.changed_on) from recent_days)
    group by all

),

urls as (

    select
        offers.source,
        offers.provider,
        offers.sku,
        offers.pricing_model,
        min(offers.source_url) as source_url
    from gpu_offers as offers
    where offers.source_url is not null
    group by all

),

provider_urls as (

    select
        offers.source,
        offers.provider,
        min(offers.source_url) as source_url
    from gpu_offers as offers
    where offers.source_url is not null
    group by all

),

final as (

    select
        changes.*,
        accelerators.name as accelerator_name,
        offers.seller,
        coalesce(urls.source_url, provider_urls.source_url) as source_url
    from changes
    left join accelerators on accelerators.accelerator_id = changes.accelerator_id
    left join urls
        on urls.source = changes.source
        and urls.provider = changes.provider
        and urls.sku = changes.sku
        and urls.pricing_model = changes.pricing_model
    left join provider_urls
        on provider_urls.source = changes.source
        and provider_urls.provider = changes.provider
    left join (
        select distinct source, provider, sku, seller from gpu_offers
    ) as offers
        on offers.source = changes.source
        and offers.provider = changes.provider
        and offers.sku = changes.sku
    qualify row_number() over (
        partition by changes.source, changes.provider, changes.sku, changes.pricing_model,
            changes.changed_on, changes.old_price_per_hour, changes.new_price_per_hour
        order by offers.seller
    ) = 1

)

select * from final
order by changed_on desc, observed_at desc, source, provider, sku, pricing_model,
    old_price_per_hour, new_price_per_hour
limit $limit
"""


def _figure(v: float | None) -> str:
    return "-" if v is None else f"{v:.6g}"


def item(row: dict[str, Any]) -> dict[str, Any]:
    """One JSON Feed item of a change (see the module doc)."""
    per_gpu = row["new_price_per_gpu_hour"] is not None and row["old_price_per_gpu_hour"] \
        is not None
    old, new = ((row["old_price_per_gpu_hour"], row["new_price_per_gpu_hour"]) if per_gpu
                else (row["old_price_per_hour"], row["new_price_per_hour"]))
    unit = f"{row['currency']}/GPU-h" if per_gpu else f"{row['currency']}/h per instance"
    seller = row.get("seller") or row["provider"]
    what = row.get("accelerator_name") or row["sku"]
    if row.get("gpu_count"):
        what += f" x{row['gpu_count']:g}"
    pct = row.get("change_pct")
    title = (f"{what} at {seller}: {row['sku']} {_figure(old)} -> {_figure(new)} {unit}"
             + (f" ({pct:+.1f}%)" if pct is not None else ""))
    regions = row["regions"] or []
    observed = row["observed_at"]
    out: dict[str, Any] = {
        "id": (f"gpucost:price-change:{row['source']}/{row['provider']}/{row['sku']}/"
               f"{row['pricing_model']}/{row['changed_on']}/"
               f"{_figure(row['old_price_per_hour'])}->{_figure(row['new_price_per_hour'])}"),
        "title": title,
        "content_text": (
            f"{title}. {row['pricing_model']}, {len(regions)} region(s): "
            f"{', '.join(regions[:20])}{' ...' if len(regions) > 20 else ''}. Instance "
            f"{_figure(row['old_price_per_hour'])} -> {_figure(row['new_price_per_hour'])} "
            f"{row['currency']}/h; previously observed {row['previous_day']}; source "
            f"{row['source']}."),
        "date_published": observed.isoformat() if observed is not None else None,
        "tags": [t for t in (row.get("accelerator_id"), row["provider"],
                             row["pricing_model"]) if t],
        "_gpucost": {k: row[k] for k in (
            "accelerator_id", "provider", "seller", "source", "sku", "pricing_model",
            "currency", "gpu_count", "old_price_per_hour", "new_price_per_hour",
            "old_price_per_gpu_hour", "new_price_per_gpu_hour", "change_pct")}
        | {"regions": regions, "changed_on": str(row["changed_on"]),
           "previous_day": str(row["previous_day"])},
    }
    if row.get("source_url"):
        out["url"] = row["source_url"]
    if out["date_published"] is None:
        del out["date_published"]
    return out


def feed_document(con: Any, limit: int = FEED_ITEMS) -> dict[str, Any]:
    """The JSON Feed of the build (or the published warehouse) `con` holds."""
    cur = con.execute(FEED_SQL, {"limit": limit})
    cols = [d[0] for d in cur.description]
    items = [item(dict(zip(cols, r, strict=True))) for r in cur.fetchall()]
    return {
        "version": "https://jsonfeed.org/version/1.1",
        "title": "gpucost: GPU price changes",
        "description": (f"The {limit} newest changes of a listed GPU price (mart "
                        "price_changes), newest first; one item per offer x day x old -> new "
                        "price, its regions named (docs/alerts.md)."),
        "language": "en",
        "items": items,
    }


def stage_feed(con: Any, stage: Any) -> Path:
    """Write the feed into the staged snapshot (`stage(final_name)` -> the path to write)."""
    from gpucost.warehouse.files import open_exclusive

    tmp: Path = stage(FEED_NAME)
    with open_exclusive(tmp) as fh:  # never through a link planted at the name
        fh.write(json.dumps(feed_document(con), indent=1, default=str,
                            ensure_ascii=False) + "\n")
    return tmp
