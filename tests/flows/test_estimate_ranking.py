"""Issue 38 item 4, the ranking of `gpucost estimate training` at whole nodes (rank_platforms,
plain rows): a multi-node plan is ranked only at an offer whose instance holds a whole node;
a platform whose only offers are smaller boxes is listed after the ranked ones with the reason,
never ranked by the smaller box's price."""

from __future__ import annotations

from gpucost.flows.cli.estimate.common import rank_platforms


def _row(acc: str, basis: str, cost: float | None, fits: bool | None, *, gpus: float | None = 8,
         price: float = 1.0, provider: str | None = "p", feasible: bool = True,
         kind: str = "observed", rank: int | None = 1,
         observed: str | None = "2026-05-07 00:00:00+00:00") -> dict:
    return {"accelerator_id": acc, "price_basis": basis, "cost_usd": cost,
            "observed_at": observed if rank is not None else None,
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


def test_an_undated_price_never_ranks_ahead_of_a_dated_one() -> None:
    """The recorded load's case: Cudo's A800 PCIe 8-GPU box (7.1488 / 8 = 0.8936 USD/GPU-h,
    a SkyPilot catalog known by its commit only) priced a 7B run at 343,830 GPU-hours x 0.8936
    = 307,246 USD, below Lambda's dated B200 8x at 374,378, and ranked first; a price without
    a date is not a current price, so it ranks after every dated one (a dated spot price
    included), before the platforms with no fitting offer."""
    assert int(343_830 * 7.1488 / 8) == 307_246
    rows = [
        _row("nvidia-a800-pcie-80gb", "on_demand_min", 307_246, True, observed=None,
             price=0.8936, provider="cudo"),
        _row("nvidia-b200-sxm-180gb", "on_demand_min", 374_378, True, price=6.69),
        _row("nvidia-h100-sxm5-80gb", "on_demand_min", 486_730, True, price=3.99),
        _row("nvidia-rtx-3090-24gb", "community_min", 284_439, True),
        _row("intel-gaudi2-96gb", "spot_min", 300_000, True, observed=None),
        _row("nvidia-a10-24gb", "on_demand_min", 1.0, False, gpus=2),
    ]
    ranking = rank_platforms(rows)
    assert [(e["accelerator_id"], e["rank"]) for e in ranking] == [
        ("nvidia-b200-sxm-180gb", 1), ("nvidia-h100-sxm5-80gb", 2), ("nvidia-rtx-3090-24gb", 3),
        ("nvidia-a800-pcie-80gb", 4), ("intel-gaudi2-96gb", 5), ("nvidia-a10-24gb", None)]
    # a platform with a dated and an undated offer is ranked at the dated one
    rows = [_row("a", "on_demand_min", 100, True, observed=None),
            _row("a", "spot_min", 150, True), _row("b", "on_demand_min", 120, True)]
    ranking = rank_platforms(rows)
    assert [(e["accelerator_id"], e["rank"], e["basis"]["cost_usd"]) for e in ranking] == [
        ("b", 1, 120), ("a", 2, 150)]
