"""Schedules and options (issue 27, item 7): a cron of 6 or 7 fields or one that never fires, a
numeric option of nan, inf, a negative number (or zero where zero means nothing), a wildcard
given as a name, a report written to a directory: each is a usage error, one line, exit 2."""

from __future__ import annotations

import argparse
import math
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gpucost.flows.cli import options
from gpucost.flows.cli.main import main
from gpucost.flows.cli.output import EXIT_FAILED, EXIT_OK, EXIT_USAGE


def usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run the CLI; it must exit 2 (parser or command) with one line on stderr."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    assert code == EXIT_USAGE, argv
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.strip(), err
    return err.strip()


@pytest.fixture
def no_cron_env(monkeypatch):
    for name in ("GPUCOST_PRICES_CRON", "GPUCOST_SPECS_CRON", "GPUCOST_THROUGHPUT_CRON",
                 "GPUCOST_SCHEDULE_TIMEZONE", "GPUCOST_SCHEDULER_GRACE_S"):
        monkeypatch.delenv(name, raising=False)


# ---- serve: crons ------------------------------------------------------------------------
@pytest.mark.parametrize("cron", ["* * * * * *", "0 */6 * * * *", "0 0 */6 * * * 2030"])
def test_serve_refuses_6_and_7_field_crons(no_cron_env, capsys, cron):
    """A 6-field cron was served as one refresh per second."""
    err = usage_error(["serve", "--dry-run", "--prices-cron", cron], capsys)
    assert "Invalid cron" in err and "a cron has 5 fields" in err and "--prices-cron" in err


@pytest.mark.parametrize("cron", ["0 0 31 2 *", "0 0 30 2 *", "0 0 31 4 *"])
def test_serve_refuses_a_cron_that_never_fires(no_cron_env, capsys, cron):
    err = usage_error(["serve", "--dry-run", "--specs-cron", cron], capsys)
    assert "it never fires" in err and "--specs-cron" in err


def test_serve_says_where_a_bad_cron_came_from(no_cron_env, monkeypatch, capsys):
    monkeypatch.setenv("GPUCOST_THROUGHPUT_CRON", "*/5 * * * * *")
    assert "(GPUCOST_THROUGHPUT_CRON)" in usage_error(["serve", "--dry-run"], capsys)
    monkeypatch.delenv("GPUCOST_THROUGHPUT_CRON")
    monkeypatch.setenv("GPUCOST_SCHEDULER_GRACE_S", "nan")
    assert "GPUCOST_SCHEDULER_GRACE_S" in usage_error(["serve", "--dry-run"], capsys)


def test_serve_still_takes_rare_but_real_crons(no_cron_env, capsys):
    """Feb 29 fires within 4 years; the defaults and a yearly cron are fine."""
    assert main(["serve", "--dry-run", "--prices-cron", "0 0 29 2 *",
                 "--specs-cron", "15 4 1 1 *"]) == EXIT_OK
    assert "cron '0 0 29 2 *'" in capsys.readouterr().out


def test_check_cron_is_the_rule():
    now = datetime(2026, 3, 1, tzinfo=UTC)
    options.check_cron("0 */6 * * *", now=now)
    for bad in ("* * * * * *", "@daily", "61 * * * *", "0 0 31 2 *", "every six hours"):
        with pytest.raises(ValueError, match="Invalid cron"):
            options.check_cron(bad, now=now)


# ---- numeric options ---------------------------------------------------------------------
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1", "1e300"])
def test_sql_timeout_takes_a_finite_number_of_seconds(capsys, value):
    """`--timeout nan` removed the time limit."""
    err = usage_error(["sql", f"--timeout={value}", "select 1"], capsys)
    assert "argument --timeout" in err and value in err


@pytest.mark.parametrize("value", ["nan", "-1", "1.5", "inf"])
def test_sql_max_rows_takes_a_whole_number(capsys, value):
    assert "argument --max-rows" in usage_error(["sql", "--max-rows", value, "select 1"], capsys)


@pytest.mark.parametrize("option,value", [
    ("--max-price", "nan"), ("--max-price", "inf"), ("--max-price", "-1"), ("--max-price", "0"),
    ("--min-memory", "nan"), ("--min-memory", "-80"), ("--max-age", "nan"),
    ("--max-age", "-1"), ("--max-age", "inf")])
def test_offers_numeric_options_refuse_nan_inf_negative(capsys, option, value):
    assert f"argument {option}" in usage_error(["offers", "H100", option, value], capsys)


@pytest.mark.parametrize("option,value", [
    ("--max-age-days", "nan"), ("--max-age-days", "-1"), ("--max-age-days", "0"),
    ("--max-age-days", "inf"), ("--max-age-hours", "nan"), ("--max-age-hours", "-1")])
def test_sources_max_age_refuses_nan_inf_negative(capsys, option, value):
    assert f"argument {option}" in usage_error(["sources", option, value], capsys)


@pytest.mark.parametrize("argv", [
    ["--params", "nan"], ["--params", "-7e9"], ["--gpus", "inf"], ["--mfu", "1.5"],
    ["--mfu", "nan"], ["--tokens", "0"], ["--utilisation", "-0.5"], ["--years", "nan"]])
def test_estimate_numeric_options_refuse_nan_inf_negative(capsys, argv):
    assert "argument --" in usage_error(["estimate", *argv], capsys)


@pytest.mark.parametrize("value", ["-1", "nan", "1.5"])
def test_explain_fetch_id_is_a_whole_number(capsys, value):
    usage_error(["explain", "fetch", value], capsys)


def test_the_shared_types():
    assert options.positive("2.5") == 2.5 and options.non_negative("0") == 0.0
    assert options.positive_int("8") == 8 and isinstance(options.positive_int("8"), int)
    assert options.fraction("1") == 1.0
    for parse, text in ((options.positive, "0"), (options.positive, "nan"),
                        (options.non_negative, "-0.1"), (options.non_negative, "inf"),
                        (options.non_negative_int, "2.5"), (options.fraction, "1.01"),
                        (options.positive, "abc")):
        with pytest.raises(argparse.ArgumentTypeError):
            parse(text)


# ---- names are literal -------------------------------------------------------------------
@pytest.mark.parametrize("name", ["%", "_", "%%", "*", "%:8", "_:1"])
def test_offers_wildcards_are_not_names(capsys, name):
    """`offers %` and `offers _` were LIKE wildcards."""
    err = usage_error(["offers", name], capsys)
    assert "needs letters or digits" in err and "no wildcards" in err


@pytest.fixture
def published(service_warehouse: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(service_warehouse))
    return service_warehouse


def test_offers_region_is_literal_text(published, capsys):
    """--region matched with ILIKE: "_" or "%" listed every region."""
    assert main(["offers", "H100", "--region", "_"]) == EXIT_FAILED
    assert main(["offers", "H100", "--region", "%"]) == EXIT_FAILED
    capsys.readouterr()
    assert main(["offers", "H100", "--region", "US-EAST"]) == EXIT_OK  # any case, a part
    assert "us-east-1" in capsys.readouterr().out


def test_offers_from_python_refuses_nan_filters(published):
    import gpucost
    from gpucost.flows.cli.offers import OffersError

    for filters in ({"max_price": math.nan}, {"min_memory_gb": math.inf},
                    {"max_age_days": -1.0}, {"max_price": 0}):
        with pytest.raises(OffersError, match="finite number"):
            gpucost.offers("H100", **filters)
    with pytest.raises(OffersError, match="no wildcards"):
        gpucost.offers("%")


# ---- report -o ---------------------------------------------------------------------------
def test_report_to_a_directory_or_an_unwritable_path_is_a_usage_error(published, tmp_path,
                                                                      capsys):
    """`report -o /` printed ingest's message about payloads and transactions."""
    for out in ("/", str(tmp_path), str(tmp_path) + "/"):
        err = usage_error(["report", "-o", out], capsys)
        assert "a directory; give the file to write" in err and "payload" not in err
    a_file = tmp_path / "plain.txt"
    a_file.write_text("x")
    err = usage_error(["report", "-o", str(a_file / "report.html")], capsys)
    assert "is not a directory" in err and "payload" not in err
    assert main(["report", "-o", str(tmp_path / "new" / "report.html")]) == EXIT_OK
    assert (tmp_path / "new" / "report.html").is_file()
