"""One GPU count per provider size, whichever catalog carried the price (catalog/sizes.py)."""

from __future__ import annotations

from gpucost.catalog.records import ParseResult
from gpucost.catalog.sizes import provider_size_count
from gpucost.catalog.sources import gpuhunt


def test_provider_tables_give_the_count() -> None:
    assert provider_size_count("azure", "Standard_NV4as_v4") == 1 / 8
    assert provider_size_count("azure", "Standard_NV32as_v4") == 1.0
    assert provider_size_count("azure", "Standard_ND96isr_H100_v5") == 8.0
    assert provider_size_count("aws", "p5.48xlarge") == 8.0
    assert provider_size_count("aws", "no-such.size") is None
    assert provider_size_count("lambda", "gpu_8x_h100_sxm5") is None


def test_gpuhunt_azure_partition_is_a_fraction() -> None:
    """gpuhunt lists NV4as_v4 as 1 GPU; the azure size table says 1/8 of an MI25."""
    row = {"instance_name": "Standard_NV4as_v4", "location": "eastus", "price": "0.233",
           "gpu_count": "1", "gpu_name": "MI25", "gpu_memory": "2", "spot": "false",
           "cpu": "4", "memory": "14"}
    obs = gpuhunt._row(row, "azure", ParseResult(stream="azure"))
    assert obs is not None and obs.gpu_count == 1 / 8


def test_a_retired_size_is_refused_whichever_catalog_lists_it() -> None:
    from gpucost.catalog.sizes import retired_size

    assert retired_size("azure", "Standard_ND96isr_H100_v5_Promo")
    assert not retired_size("azure", "Standard_ND96isr_H100_v5")
    assert not retired_size("aws", "x_Promo")
    row = {"instance_name": "Standard_NC6s_v3_Promo", "location": "eastus", "price": "1.1",
           "gpu_count": "1", "gpu_name": "V100", "spot": "false"}
    result = ParseResult(stream="azure")
    assert gpuhunt._row(row, "azure", result) is None
    assert [r.reason for r in result.rejects] == ["retired_promo_size"]
