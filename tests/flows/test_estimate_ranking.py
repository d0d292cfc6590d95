"""Issue 38 item 4, the ranking of `gpucost estimate training` at whole nodes (rank_platforms,
plain rows): a multi-node plan is ranked only at an offer whose instance holds a whole node;
a platform whose only offers are smaller boxes is listed after the ranked ones with the reason,
never ranked by the smaller box's price."""

from __future__ import annotations

from gpucost.flows.cli.estimate.common import rank_platforms


def _row(acc: str, basis: str, cost: float | None, fits: bool | None, *, gpus: float | None = 8,
         price: float = 1.0, provider: str | None = "p", feasible: bool = True,
         kind: str = "observed", rank: int | None = 1) -> dict:
    return {"accelerator_id": acc, "price_basis": basis, "cost_usd": cost,
            "basis_fits_node": fits, "basis_gpu_count": gpus, "price_per_gpu_hour": price,
            "provider": provider, "feasible": feasible, "basis_kind": kind,
            "basis_rank": rank, "gpus_per_node": 8, "infeasible_reason": None}


def test_a_smaller_box_never_ranks_a_multi_node_plan() -> None:
    """The issue's A40: 731,769 GPU-hours at RunPod's 1-GPU 0.44/h would be 321,978 USD and
    rank it above the H100 (8-GPU on-demand 509,055): it is listed unranked instead, with the
    box it would have been priced at."""
    rows = [
        _row("nvidia-h100-sxm5-80gb", "on_demand_min", 509_055, True),
        _row("nvidia-h100-sxm5-80gb", "community_min", 238_261, False, gpus=1, price=1.87),
        _row("nvidia-a40-48gb", "on_demand_min", 321_978, False, gpus=1, price=0.44,
             provider="runpod"),
        _row("nvidia-a40-48gb", "owned", 200_000, None, gpus=None, kind="owned", rank=None),
        _row("nvidia-b200-sxm-180gb", "on_demand_min", 391_550, True),
        _row("amd-mi25-16gb", "on_demand_min", 1.0, True, feasible=False),
    ]
    ranking = rank_platforms(rows)
    assert [(e["accelerator_id"], e["rank"]) for e in ranking] == [
        ("nvidia-b200-sxm-180gb", 1), ("nvidia-h100-sxm5-80gb", 2), ("nvidia-a40-48gb", None),
        ("amd-mi25-16gb", None)]
    a40 = ranking[2]
    assert a40["reason"] == ("no 8-GPU offer seen; the cheapest is a 1-GPU box at 0.44 USD/GPU-h "
                             "(runpod, on_demand_min)")
    # no row that carries a rank is priced by a smaller box
    assert all(r["basis_fits_node"] is not False for r in rows if r["rank"] is not None)
    assert [r["rank"] for r in rows[:2]] == [2, None]


def test_without_a_fitting_on_demand_offer_the_cheapest_fitting_rental_ranks_after() -> None:
    rows = [_row("a", "on_demand_min", 100, True), _row("b", "spot_min", 50, True),
            _row("b", "on_demand_min", 40, False, gpus=2)]
    assert [(e["accelerator_id"], e["rank"]) for e in rank_platforms(rows)] == [("a", 1),
                                                                               ("b", 2)]
