"""GPU memory read in MiB, stated in the vendor's GB (catalog/memory.py, issue 37 item 5)."""

from __future__ import annotations

import pytest

from gpucost.catalog.memory import capacity_gb


@pytest.mark.parametrize(("mib", "gb"), [
    (49152, 48.0),   # cudo L40S SizeInMiB: 48 GiB, the datasheet's 48 GB
    (46068, 48.0),   # vast L40S (nvidia-smi, ECC on): 44.99 GiB = 15/16 of 47.99
    (46080, 48.0),   # lium L40 / L40S: 45 GiB = 15/16 of 48
    (23028, 24.0),   # A10 with ECC: 22.49 GiB = 15/16 of 23.99
    (15360, 16.0),   # T4 with ECC: 15 GiB = 15/16 of 16
    (24564, 24.0),   # RTX 4090 (no ECC): 23.99 GiB
    (81559, 79.6),   # H100 80GB HBM3 as nvidia-smi shows it: left as read
    (81920, 80.0),   # A100 80GB
    (275456, 269.0),  # lium B300: never snapped to a GDDR size
    (97887, 95.6),   # RTX PRO 6000 (vast)
])
def test_mib_reads_as_the_vendors_binary_gb(mib: float, gb: float) -> None:
    assert capacity_gb(mib) == gb


def test_decimal_conversion_would_misread_the_printed_sizes() -> None:
    # MiB x 1.048576 / 1000 puts an L40S at 51.5 and an A100 80GB at 85.9: not the printed GB
    assert round(49152 * 1.048576 / 1000, 1) == 51.5
    assert capacity_gb(49152) == 48.0 and capacity_gb(81920) == 80.0
