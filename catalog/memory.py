"""GPU memory read in MiB, stated in the vendor's GB (the catalog's `memory_gb`).

A GPU's memory is binary however its vendor prints it: the "48 GB" of an L40S is 48 GiB
(49,152 MiB: 24 GDDR6 chips of 16 Gbit), the "80 GB" of an H100 80 GiB (5 HBM3 stacks of
16 GiB). So a MiB figure is divided by 1024, never multiplied by 1.048576 / 1000: that would
put the L40S at 51.5 GB and an A100 80GB at 85.9 GB, against the 48 and 80 every datasheet
prints.

Sources that report what the host sees (nvidia-smi's "Total" memory: Vast, Lium) state the
*usable* memory. On a GDDR data-center card with ECC on (L40, L40S, A10, A40, T4, L4: ECC is
on by default there) the driver keeps 1/16 of the memory for the ECC check bits, so an L40S
shows 46,068 MiB (45 GiB) and an A10 23,028 MiB (22.5 GiB). `capacity_gb` states the card's
memory: such a reading (15/16 of a GDDR capacity, within 0.3 GiB) is read as that capacity.
Without ECC the reading is the capacity less a few MiB the driver keeps (RTX 4090 24,564 MiB,
23.99 GiB; H100 81,559 MiB, 79.6 GiB), within 1% of the printed figure, and is left as read.
"""

from __future__ import annotations

# GDDR capacities (GiB) sold on cards that run ECC on by default, the targets of a 15/16 reading
_ECC_GDDR_CAPACITIES = (8, 12, 16, 20, 24, 32, 48, 96)
_ECC_SHARE_KEPT = 15 / 16
_SNAP_GIB = 0.3


def capacity_gb(mib: float) -> float:
    """The card's memory in the vendor's GB (GiB) from a MiB figure, one decimal; a reading
    that is the ECC-reserved 15/16 of a GDDR capacity is that capacity (46,068 MiB -> 48.0)."""
    gib = mib / 1024
    for capacity in _ECC_GDDR_CAPACITIES:
        if abs(gib - capacity) <= _SNAP_GIB:
            return round(gib, 1)  # the capacity itself, ECC off
    for capacity in _ECC_GDDR_CAPACITIES:
        if abs(gib / _ECC_SHARE_KEPT - capacity) <= _SNAP_GIB:
            return float(capacity)
    return round(gib, 1)
