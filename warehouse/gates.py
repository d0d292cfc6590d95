"""Plausibility gates applied by the loader before observations are written.

A gate refuses single rows (never a whole payload; the row-count guard in refusals.py does that)
and turns them into Reject rows with a named reason, so they land in raw.rejects:

* ``price_out_of_band``: the per-GPU USD price of a row that maps to a curated accelerator
  lies outside the sane band of that accelerator. The band is a judgement, derived from the
  curated purchase price where one exists: a rental that would pay the card back in less
  than MIN_PAYBACK_HOURS (about four days) or in more than MAX_PAYBACK_HOURS (about eleven
  years) is a unit error (cents for dollars, a monthly price as hourly) or a placeholder,
  not a price; the band is wide because small-GPU instances carry large hosts (Azure
  NV36adms A10 v5 lists 9.04 USD/h for one A10). An accelerator without a purchase price
  gets FALLBACK_BAND, and so does a row whose GPU name maps to no accelerator (the generic
  band: no rental of any GPU costs more than 100 USD per GPU-hour). A USD row without a
  whole GPU count (fractional GPUs, unknown count) is held to INSTANCE_MAX_USD per hour.
  Rows in other currencies are not band-checked (no rates here).
* ``price_not_finite``: a price that is Infinity or NaN, in any currency, whatever it maps to.
* ``gpu_count_invalid``: a GPU count that is no count of GPUs: Infinity or NaN, zero or
  negative, a fraction above one GPU (1.5), or a slice below one GPU from a provider that
  sells no slices (FRACTIONAL_GPU_PROVIDERS). The parsers refuse such rows first
  (catalog.parsing.read_gpu_count); this is the last line of defence at load. An
  unknown count (None: a size the source does not document) is not refused here.
* ``price_jump``: the price moved by more than JUMP_FACTOR (either way) against the previous
  observation of the same offer key (source, provider, sku, region, pricing_model, os), of
  any age, found in the daily rollup (price_daily) or earlier in the same payload. A rejected
  row never becomes the "previous" observation of the next one.

The accelerator mapping here is the same rule as models/intermediate/int_gpu_name_map.sql
(keys: lowercase letters and digits only; sku alias for the provider > sku alias for any
provider > gpu_name alias for the provider > gpu_name alias for any provider; the smallest
accelerator id when one key has several); tests/warehouse/test_gates.py checks both agree.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from gpucost.catalog import CATALOG_DIR
from gpucost.catalog.names import name_key
from gpucost.catalog.parsing import read_gpu_count
from gpucost.catalog.records import PriceObservation, Reject

MIN_PAYBACK_HOURS = 100.0
MAX_PAYBACK_HOURS = 100_000.0
FALLBACK_BAND = (0.01, 100.0)  # USD per GPU-hour, for accelerators without a purchase price
# a USD row without a whole GPU count: at most this per hour (16 GPUs at the generic maximum)
INSTANCE_MAX_USD = FALLBACK_BAND[1] * 16
JUMP_FACTOR = 5.0
# providers whose rows can be a slice of one GPU (gpu_count below 1): Azure NVads A10 v5 /
# NVv4 partitions, AWS g6f L4 slices, GCP G4 RTX PRO 6000 shares, RunPod MIG slices, Vast
# half cards, Alibaba's A10*1/3 (SkyPilot); any other provider's count is whole
FRACTIONAL_GPU_PROVIDERS = frozenset({"aws", "azure", "gcp", "runpod", "vast", "alicloud"})

OfferKey = tuple[str, str, str, str, str, str]  # source, provider, sku, region, model, os


def offer_key(source: str, obs: PriceObservation) -> OfferKey:
    return (source, obs.provider.strip().lower(), obs.sku, obs.region, obs.pricing_model,
            (obs.os or "linux").lower())


@dataclass
class Gates:
    """Alias lookup and per-accelerator bands, read from the curated catalog CSVs."""

    aliases: dict[tuple[str, str, str], str] = field(default_factory=dict)  # kind, prov, key
    bands: dict[str, tuple[float, float]] = field(default_factory=dict)

    @classmethod
    def from_catalog(cls, catalog_dir: Path = CATALOG_DIR) -> Gates:
        gates = cls()
        with (catalog_dir / "aliases.csv").open(newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                key = name_key(row.get("alias"))
                acc = (row.get("accelerator_id") or "").strip()
                kind = (row.get("kind") or "").strip().lower()
                if not key or not acc or not kind:
                    continue
                scope = (kind, (row.get("provider") or "").strip().lower(), key)
                held = gates.aliases.get(scope)
                gates.aliases[scope] = acc if held is None else min(held, acc)
        with (catalog_dir / "accelerators.csv").open(newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                acc = (row.get("accelerator_id") or "").strip()
                if acc:
                    gates.bands[acc] = band_of(_float(row.get("purchase_price_usd")))
        return gates

    def accelerator_of(self, provider: str, sku: str, gpu_name_raw: str | None) -> str | None:
        prov = provider.strip().lower()
        for kind, scope, text in (("sku", prov, sku), ("sku", "", sku),
                                  ("gpu_name", prov, gpu_name_raw),
                                  ("gpu_name", "", gpu_name_raw)):
            key = name_key(text)
            if key and (acc := self.aliases.get((kind, scope, key))):
                return acc
        return None

    def band_rejects(
        self, prices: list[PriceObservation]
    ) -> tuple[list[PriceObservation], list[Reject]]:
        kept: list[PriceObservation] = []
        rejects: list[Reject] = []
        for obs in prices:
            what = f"{obs.provider} {obs.sku} {obs.region} {obs.pricing_model}"
            why = count_problem(obs)
            if why:
                rejects.append(Reject("gpu_count_invalid", f"{what}: {why}", _raw(obs)))
                continue
            if obs.price_per_hour is not None and not math.isfinite(obs.price_per_hour):
                rejects.append(Reject("price_not_finite",
                                      f"{what}: price {obs.price_per_hour}", _raw(obs)))
                continue
            if obs.currency.upper() != "USD" or obs.price_per_hour is None:
                kept.append(obs)
                continue
            per_gpu = per_gpu_price(obs)
            if per_gpu is None:  # fractional or unknown GPU count: the instance price
                if obs.price_per_hour <= INSTANCE_MAX_USD:
                    kept.append(obs)
                    continue
                rejects.append(Reject(
                    "price_out_of_band",
                    f"{what}: {obs.price_per_hour:.4g} USD per hour above {INSTANCE_MAX_USD:.4g}"
                    f" for an instance without a whole GPU count", _raw(obs)))
                continue
            acc = self.accelerator_of(obs.provider, obs.sku, obs.gpu_name_raw)
            low, high = self.bands.get(acc, FALLBACK_BAND) if acc else FALLBACK_BAND
            if low <= per_gpu <= high:
                kept.append(obs)
                continue
            rejects.append(Reject(
                "price_out_of_band",
                f"{what}: {per_gpu:.4g} USD per GPU-hour outside [{low:.4g}, {high:.4g}] for "
                f"{acc or 'an unmapped GPU (generic band)'}",
                _raw(obs),
            ))
        return kept, rejects


def _float(text: str | None) -> float | None:
    try:
        value = float((text or "").strip())
    except ValueError:
        return None
    return value if value > 0 else None


def band_of(purchase_price_usd: float | None) -> tuple[float, float]:
    """The sane per-GPU-hour USD band of an accelerator with this purchase price."""
    if not purchase_price_usd:
        return FALLBACK_BAND
    return purchase_price_usd / MAX_PAYBACK_HOURS, purchase_price_usd / MIN_PAYBACK_HOURS


def count_problem(obs: PriceObservation) -> str:
    """Why the row's GPU count is no count of GPUs ("" when it is one, or is unknown): the
    parsers' rule (read_gpu_count), slices allowed for FRACTIONAL_GPU_PROVIDERS only."""
    fractions = obs.provider.strip().lower() in FRACTIONAL_GPU_PROVIDERS
    count, why = read_gpu_count(obs.gpu_count, fractions=fractions)
    if why and not fractions and isinstance(obs.gpu_count, (int, float)) \
            and 0 < obs.gpu_count < 1:
        return (f"GPU count {obs.gpu_count:g}: {obs.provider} sells no slice of a GPU "
                "(FRACTIONAL_GPU_PROVIDERS)")
    return why


def per_gpu_price(obs: PriceObservation) -> float | None:
    """price_per_hour / gpu_count for whole GPUs; None for fractional, unknown or impossible
    counts (Infinity, NaN, zero, negative: count_problem refuses those rows)."""
    count = obs.gpu_count
    if (obs.price_per_hour is None or count is None or not math.isfinite(count) or count < 1
            or abs(count - round(count)) > 1e-9):
        return None
    return obs.price_per_hour / round(count)


def _raw(obs: PriceObservation) -> str:
    return (f"provider={obs.provider},sku={obs.sku},region={obs.region},"
            f"pricing_model={obs.pricing_model},price_per_hour={obs.price_per_hour},"
            f"currency={obs.currency},gpu_name_raw={obs.gpu_name_raw},gpu_count={obs.gpu_count}")


def jump_rejects(
    source: str,
    prices: list[PriceObservation],
    observed_at: datetime,
    priors: Mapping[int, tuple[datetime, float]],
) -> tuple[list[PriceObservation], list[Reject]]:
    """Rows whose price jumped more than JUMP_FACTOR against the previous observation.

    `priors` maps the index of a row in `prices` to the previous stored observation of its
    key (observed_at, price_per_hour), as found in the daily rollup; earlier rows of the same
    payload count too, in time order, and only once accepted.
    """
    order = sorted(range(len(prices)), key=lambda i: (prices[i].observed_at or observed_at, i))
    last_accepted: dict[OfferKey, tuple[datetime, float]] = {}
    refused: dict[int, Reject] = {}
    for i in order:
        obs = prices[i]
        price = obs.price_per_hour
        if price is None or price <= 0:
            continue
        when = obs.observed_at or observed_at
        key = offer_key(source, obs)
        candidates: Iterable[tuple[datetime, float]] = [
            c for c in (priors.get(i), last_accepted.get(key)) if c is not None and c[0] < when
        ]
        previous = max(candidates, default=None, key=lambda c: c[0])
        if previous is not None and previous[1] > 0:
            ratio = price / previous[1]
            if ratio > JUMP_FACTOR or ratio < 1 / JUMP_FACTOR:
                refused[i] = Reject(
                    "price_jump",
                    f"{obs.provider} {obs.sku} {obs.region} {obs.pricing_model}:"
                    f" {previous[1]:.6g} -> {price:.6g} ({ratio:.3g}x) against the observation"
                    f" of {previous[0].isoformat()}",
                    _raw(obs),
                )
                continue
        last_accepted[key] = (when, price)
    kept = [obs for i, obs in enumerate(prices) if i not in refused]
    return kept, [refused[i] for i in sorted(refused)]
