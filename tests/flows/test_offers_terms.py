"""Answers by term (issue 41 item 2): which pricing models `gpucost offers --term N
--pricing-model MODEL` lists (plain functions), how the break-even share of hours is said, and
the CLI's usage errors on the service warehouse (tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpucost.catalog.records import PRICING_MODELS
from gpucost.flows.cli.estimate.print_training import share_of_hours
from gpucost.flows.cli.main import main
from gpucost.flows.cli.offers import (
    PRICING_MODEL_CHOICES,
    OffersError,
    pricing_models,
    term_months_of,
)
from gpucost.flows.cli.output import EXIT_FAILED, EXIT_OK, EXIT_USAGE

# what the macro term_months says (models/macros/term_months.sql), as term_months_of reads it
TERMS = {"on_demand": None, "spot": None, "community": None, "interruptible_bid": None,
         "queued": None, "capacity_block": None, "reserved_1m": 1, "reserved_6m": 6,
         "reserved_1y": 12, "savings_plan_1y": 12, "reserved_3y": 36, "savings_plan_3y": 36}


def test_default_listing_is_on_demand_as_before() -> None:
    assert pricing_models(TERMS, None) == (["on_demand"], "on-demand")
    assert pricing_models(TERMS, "spot") == (["spot"], "spot")
    assert pricing_models(TERMS, "all") == (sorted(TERMS), "all")


def test_a_term_lists_every_commitment_of_that_length() -> None:
    assert pricing_models(TERMS, None, 12) == (
        ["reserved_1y", "savings_plan_1y"], "12-month commitment (reserved_1y, savings_plan_1y)")
    assert pricing_models(TERMS, "all", 36)[0] == ["reserved_3y", "savings_plan_3y"]
    assert pricing_models(TERMS, None, 6)[0] == ["reserved_6m"]
    assert pricing_models(TERMS, "savings_plan_1y", 12)[0] == ["savings_plan_1y"]
    assert pricing_models(TERMS, None, 12.0)[0] == ["reserved_1y", "savings_plan_1y"]


@pytest.mark.parametrize(("model", "term", "said"), [
    ("bogus", None, "--pricing-model 'bogus': one of"),
    (None, 5, "--term 5: commitments are sold for 1, 6, 12 or 36 months"),
    (None, True, "--term True"),
    (None, "12", "--term 12: commitments"),  # a string is no number of months
    ("reserved_3y", 12, "reserved_3y is a 36-month commitment; the 12-month ones are "
                        "reserved_1y, savings_plan_1y"),
    ("spot", 12, "spot is no commitment"),
])
def test_bad_model_or_term_is_a_named_error(model, term, said) -> None:
    with pytest.raises(OffersError) as exc:
        pricing_models(TERMS, model, term)
    assert said in str(exc.value) and "\n" not in str(exc.value)


def test_the_choices_are_the_vocabulary() -> None:
    """No hard-coded tuple: --pricing-model takes every value of catalog/records.py, and the
    alerts take the same ones."""
    from gpucost.flows.alerts import PRICING_MODELS as ALERT_MODELS

    assert set(PRICING_MODEL_CHOICES) == set(PRICING_MODELS) | {"all"}
    assert set(ALERT_MODELS) == set(PRICING_MODELS) == set(TERMS)


def test_share_of_hours() -> None:
    """0.6937 -> '69%'; 1.923 (the commitment costs more per hour than on-demand) -> never."""
    assert share_of_hours(61.383674231 / 88.490000119) == "69%"
    assert share_of_hours(1.923) == "never (192%)"
    assert share_of_hours(1.0) == "100%"
    assert share_of_hours(None) == "-" and share_of_hours(float("nan")) == "-"


# ------------------------------------------------------------ on the service warehouse


@pytest.fixture
def published(service_warehouse: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(service_warehouse))
    return service_warehouse


def test_term_months_come_from_the_macro(published) -> None:
    from gpucost.warehouse.publish import connect_readonly

    con = connect_readonly(published)
    try:
        assert term_months_of(con) == TERMS
    finally:
        con.close()


def _run(argv: list[str]) -> int:
    """main's exit code, also when the parser exits (a usage error said by argparse)."""
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


def test_offers_cli_term_and_model(published, capsys) -> None:
    # the fixtures hold on-demand and spot SkyPilot rows only: no 12-month commitment
    assert main(["offers", "H100:8", "--term", "12"]) == EXIT_FAILED
    out = capsys.readouterr().out
    assert "no 12-month commitment (reserved_1y, savings_plan_1y) offer in force" in out
    for argv, said in ((["--term", "5"], "--term 5: commitments are sold for"),
                       (["--term", "0"], "argument --term"),
                       (["--term", "12", "--pricing-model", "reserved_3y"],
                        "reserved_3y is a 36-month commitment"),
                       (["--pricing-model", "bogus"], "argument --pricing-model"),
                       (["--spot", "--term", "12"], "spot is no commitment")):
        assert _run(["offers", "H100:8", *argv]) == EXIT_USAGE, argv
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1 and "Traceback" not in err, err
    # the default is unchanged: on-demand only, no pricing-model column
    assert main(["offers", "H100:8"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "pricing model" not in out.splitlines()[0] and ", on-demand, " in out
    # several models: each row says its own
    assert main(["offers", "H100:8", "--pricing-model", "all"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "pricing model" in out.splitlines()[0] and "on_demand" in out
