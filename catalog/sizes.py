"""One GPU count per provider size, and one retirement rule, whichever source carried the price.

Aggregated catalogs (SkyPilot, gpuhunt) list Azure's NVv4 sizes as 1 GPU each, although they
are 1/8, 1/4 and 1/2 of an MI25; the provider's own module knows the size. A parser that
reads a provider's size from another catalog asks here first.
"""

from __future__ import annotations

from gpucost.catalog.sources import aws, azure


def provider_size_count(provider: str, sku: str) -> float | None:
    """The GPU count (a fraction for a GPU partition) of `provider`'s size `sku` from that
    provider's own size table, or None when the table does not know the size."""
    if provider == "azure":
        return azure.gpu_of_size(sku)[1]
    if provider == "aws" and sku in aws.INSTANCE_GPUS:
        return float(aws.INSTANCE_GPUS[sku][1])
    return None


def retired_size(provider: str, sku: str) -> bool:
    """Whether `provider`'s size is a retired one (Azure `*_Promo`), kept out of every price."""
    return provider == "azure" and azure.is_retired_size(sku)
