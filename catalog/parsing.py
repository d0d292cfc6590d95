"""What every source parser shares: a zip member read under a cap, the cheapest of an offer
listed twice (a duplicate_offer reject for the other), the refusal of a payload without an
accepted row, and a row's GPU count (read_gpu_count: a bad count refuses its row, never the
payload; warehouse/gates.py applies the same reading at load time).

The source contract itself (Source, FetchPolicy, Part) is catalog/sources/base.py; the
reading of scraped pricing pages is catalog/pages.py.
"""

from __future__ import annotations

import math
import zipfile
from collections import Counter
from typing import Any

from gpucost.catalog.records import (
    EmptyPayloadError,
    ParseResult,
    PayloadTooLargeError,
    PriceObservation,
    Reject,
)

# the largest document a zip member may expand to (a 1 MB zip once expanded to 2.2 GB)
MAX_UNZIPPED_BYTES = 256 * 1024 * 1024


def read_zip_member(archive: zipfile.ZipFile, name: str | zipfile.ZipInfo, what: str,
                    cap: int | None = None) -> bytes:
    """One member of a zip, never expanded past `cap` (default MAX_UNZIPPED_BYTES): refused
    by its declared size first, then read through a stream that stops one byte past the cap
    (a member that lies about its size is cut there). PayloadTooLargeError when over."""
    cap = cap or MAX_UNZIPPED_BYTES
    info = name if isinstance(name, zipfile.ZipInfo) else archive.getinfo(name)
    if info.file_size > cap:
        raise PayloadTooLargeError(f"{what}: {info.filename} expands to {info.file_size} "
                                   f"bytes, above the cap of {cap}")
    with archive.open(info) as member:
        data = member.read(cap + 1)
    if len(data) > cap:
        raise PayloadTooLargeError(f"{what}: {info.filename} expands past the cap of {cap}")
    return data


class CheapestOffers:
    """Accepted price observations keyed by (provider, sku, region, pricing model): when a
    payload lists
    the same offer twice, the lowest price is kept and the other becomes a duplicate_offer
    reject (never dropped silently)."""

    def __init__(self, result: ParseResult) -> None:
        self.result = result
        self.best: dict[tuple[str, str, str, str], tuple[PriceObservation, str]] = {}

    def add(self, obs: PriceObservation, raw: str = "") -> None:
        key = (obs.provider, obs.sku, obs.region, obs.pricing_model)
        held = self.best.get(key)
        if held is None:
            self.best[key] = (obs, raw)
            return
        keep, drop = held, (obs, raw)
        if (obs.price_per_hour or 0) < (held[0].price_per_hour or 0):
            keep, drop = (obs, raw), held
        self.best[key] = keep
        self.result.rejects.append(Reject(
            "duplicate_offer",
            " ".join(x for x in (obs.provider, obs.sku, obs.region, obs.pricing_model) if x)
            + f": {drop[0].price_per_hour} dropped, {keep[0].price_per_hour} kept",
            drop[1],
        ))

    def reject(self, reason: str, detail: str, raw: str = "") -> None:
        self.result.rejects.append(Reject(reason, detail, raw))

    def finish(self, what: str, seen: str = "") -> ParseResult:
        """Put the kept offers into the result; EmptyPayloadError when there is none."""
        self.result.prices = [obs for obs, _ in self.best.values()]
        if not self.result.prices:
            raise_empty(self.result, what, seen)
        return self.result


def keep_cheapest(result: ParseResult) -> None:
    """Keep the lowest price of each offer listed twice in `result` (CheapestOffers)."""
    offers = CheapestOffers(result)
    for obs in result.prices:
        offers.add(obs)
    result.prices = [obs for obs, _ in offers.best.values()]


def finish_cheapest(result: ParseResult, what: str, seen: str = "") -> ParseResult:
    """keep_cheapest, then raise_empty(`what`, `seen`) when no price is left; the result."""
    keep_cheapest(result)
    if not result.prices:
        raise_empty(result, what, seen)
    return result


def raise_empty(result: ParseResult, what: str, seen: str = "") -> None:
    """Refuse a payload that parsed to no accepted row: `what` says so ("azure p1: no accepted
    GPU VM price"), `seen` what was read; the reject reasons are counted."""
    reasons = dict(Counter(r.reason for r in result.rejects))
    detail = ", ".join(x for x in (seen, f"rejects {reasons}" if reasons else "") if x)
    raise EmptyPayloadError(what + (f" ({detail})" if detail else ""))


# the reject reason of a row whose GPU count is stated but is no count of GPUs: not a number,
# Infinity or NaN, zero or negative, or a fraction where the source has no fractional GPUs
GPU_COUNT_INVALID = "gpu_count_invalid"


def read_gpu_count(value: Any, *, fractions: bool = False) -> tuple[float | None, str]:
    """A row's GPU count as the source states it (a JSON number, a CSV cell, the text of a
    page's number): ``(count, "")`` when it is a count, ``(None, why)`` when it is not one
    (the row is then Reject(GPU_COUNT_INVALID, why)), ``(None, "")`` when none is stated (None
    or blank: the parser decides, a CPU row or gpu_count_unknown).

    A count is finite, above zero and whole; with `fractions` (a source whose rows can be a
    slice of one GPU: Azure NVads A10 v5 1/6, AWS g6f, GCP G4 1/8, RunPod MIG 1/4, SkyPilot's
    ``A10*1/3``, Vast's half cards) also a slice below one GPU. A fraction above one (1.5)
    means nothing in any source. Never raises: ``inf``, ``1e400``, ``NaN`` or ``true`` refuse
    the row, not the payload."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None, ""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None, f"GPU count {value!r} is not a number"
    try:
        count = float(value.strip().replace(",", "") if isinstance(value, str) else value)
    except (ValueError, OverflowError):
        return None, f"GPU count {str(value)[:40]!r} is not a number"
    if not math.isfinite(count):
        shown = repr(value[:40]) if isinstance(value, str) else str(value)[:40]
        return None, f"GPU count {shown} is not finite"
    if count <= 0:
        return None, f"GPU count {count:g} is not above zero"
    if not count.is_integer() and not (fractions and count < 1):
        return None, (f"GPU count {count:g} is not a whole number of GPUs"
                      + (" nor a slice of one" if fractions else ""))
    return count, ""
