"""Approximate observation dates (issue 37 item 3) and offers labels that say what is shown
(item 6), on a small warehouse built from recorded files (../shared/data, read in place).

Figures worked out by hand from the recorded payloads:

* GCP's page of the ewyluda fixture repository (pricing_pages_html/gcp/
  gcp_gpus-pricing_tables_ewyluda-1e77fb7.html) states no date; its README (lines 72-74, 86,
  200) dates it "≈ autumn 2026" (the same commit's OCI file says lastUpdated 2026-10-01).
  Loaded with `--observed-at 2026-10`, its `a3-highgpu-8g` row, us-central1, on demand,
  88.49 USD/h for 8 H100s = 11.06125 per GPU-hour, is observed 2026-10-01 00:00 UTC with
  precision 'month', and is dated (observed_at_known).
* Shadeform's SkyPilot catalog (skypilot_format/shadeform_vms_002363d.csv, line 78) lists
  `lambdalabs_H100-sxm5x8` in saltlakecity-usa-1 at 31.92 USD/h for 8 H100s: 3.99 per
  GPU-hour, resold (Lambda runs the machine). Only that line (and the header) is loaded here.
* The project's SkyPilot Lambda fixture (tests/fixtures/skypilot/lambda_vms_tiny.csv) lists
  Lambda's own gpu_8x_h100_sxm5.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gpucost.flows.cli.main import main
from gpucost.flows.cli.output import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from gpucost.warehouse.load import ObservedAt, parse_observed_at

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
GCP_PAGE = "prices/pricing_pages_html/gcp/gcp_gpus-pricing_tables_ewyluda-1e77fb7.html"
SHADEFORM = "prices/skypilot_format/shadeform_vms_002363d.csv"


@pytest.mark.parametrize(("text", "expected"), [
    ("2026-10", ObservedAt(datetime(2026, 10, 1, tzinfo=UTC), "month")),
    ("2026-10-15", ObservedAt(datetime(2026, 10, 15, tzinfo=UTC), "day")),
    ("2026-10-15T08:30:00+00:00", ObservedAt(datetime(2026, 10, 15, 8, 30, tzinfo=UTC), "day")),
])
def test_observed_at_takes_a_month_or_a_date(text, expected):
    assert parse_observed_at(text) == expected


@pytest.mark.parametrize(("text", "named"), [
    ("2026-13", "'2026-13': no month 13 (a month is YYYY-MM, 01 to 12)"),
    ("2026-00", "no month 0"),
    ("2026-1", "nor a month YYYY-MM: '2026-1'"),
    ("2026-02-30", "day is out of range for month"),
])
def test_a_bad_observed_at_is_refused_by_name(text, named, capsys, tmp_path):
    with pytest.raises(ValueError) as info:
        parse_observed_at(text)
    assert named in str(info.value)
    payload = tmp_path / "page.html"
    payload.write_text("<html></html>")
    with pytest.raises(SystemExit) as exited:
        main(["ingest", "gcp_pricing_page", str(payload), "--observed-at", text])
    assert exited.value.code == EXIT_USAGE
    err = capsys.readouterr().err.strip()
    assert named in err and "--observed-at" in err and "\n" not in err


def test_a_month_in_the_future_is_refused(capsys, tmp_path):
    """A month stands for its first day: next year's month lies in the future."""
    month = f"{datetime.now(UTC).year + 1}-01"
    with pytest.raises(SystemExit) as exited:
        main(["ingest", "gcp_pricing_page", str(tmp_path / "x.html"), "--observed-at", month])
    assert exited.value.code == EXIT_USAGE
    err = capsys.readouterr().err
    assert "an observation date must lie between" in err
    assert "a month stands for its first day" in err


@pytest.fixture(scope="module")
def approx_wh(tmp_path_factory, request) -> Path:
    from gpucost.flows.ingest import ingest_files
    from gpucost.flows.steps import build_and_publish

    shared = request.getfixturevalue("shared_data")
    data = tmp_path_factory.mktemp("approx-wh")
    header, *rows = (shared / SHADEFORM).read_text().splitlines()
    shadeform = tmp_path_factory.mktemp("shadeform") / "shadeform_vms_002363d.csv"
    shadeform.write_text("\n".join([header, *[r for r in rows
                                                if r.startswith("lambdalabs_H100-sxm5x8,")]])
                         + "\n")
    [gcp], _ = ingest_files("gcp_pricing_page", [shared / GCP_PAGE],
                            observed_at=parse_observed_at("2026-10"), data_dir=data,
                            rebuild=False)
    assert gcp.status == "replayed"
    for path in (FIXTURES / "skypilot" / "lambda_vms_tiny.csv", shadeform):
        [o], _ = ingest_files("skypilot", [path], observed_at=datetime(2026, 3, 8, tzinfo=UTC),
                              data_dir=data, rebuild=False)
        assert o.status == "replayed", o
    build_and_publish(data)
    return data


@pytest.fixture
def published(approx_wh: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(approx_wh))
    return approx_wh


def _q(data: Path, sql: str) -> list[tuple]:
    from gpucost.warehouse.publish import connect_readonly

    con = connect_readonly(data)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_a_month_is_stored_at_its_first_instant_and_is_a_date(published):
    [row] = _q(published, "select price_per_hour, price_per_gpu_hour, observed_at, "
                          "observed_at_precision, observed_at_known "
                          "from gpu_offers where source = 'gcp_pricing_page' and "
                          "sku = 'a3-highgpu-8g' and region = 'us-central1' and "
                          "pricing_model = 'on_demand'")
    price, per_gpu, observed_at, precision, known = row
    assert price == pytest.approx(88.49) and per_gpu == pytest.approx(88.49 / 8)
    assert per_gpu == pytest.approx(11.06125)
    assert observed_at == datetime(2026, 10, 1, tzinfo=UTC)
    assert (precision, known) == ("month", True)
    # the other files are dated to the day
    assert _q(published, "select distinct observed_at_precision from gpu_offers "
                         "where source = 'skypilot'") == [("day",)]
    [raw] = _q(published, "select observed_at, observed_at_basis, observed_at_precision "
                          "from intermediate.fetches where source = 'gcp_pricing_page'")
    assert raw == (datetime(2026, 10, 1, tzinfo=UTC), "option", "month")


def test_offers_show_an_approximate_date_as_its_month(published, capsys):
    assert main(["offers", "H100:8", "--provider", "gcp"]) == EXIT_OK
    out = capsys.readouterr().out
    [line] = [ln for ln in out.splitlines() if " a3-highgpu-8g " in ln]
    assert " 11.06 " in line and " ~2026-10 " in line
    assert "dated only approximately (age ~YYYY-MM" in out
    assert main(["offers", "H100:8", "--provider", "gcp", "--format", "json"]) == EXIT_OK
    [row] = [r for r in json.loads(capsys.readouterr().out) if r["sku"] == "a3-highgpu-8g"]
    assert (row["observed_at_precision"], row["observed_at_known"]) == ("month", True)
    assert row["observed_at"].startswith("2026-10-01")
    # an approximate date is a date: --dated-only keeps it
    assert main(["offers", "H100:8", "--provider", "gcp", "--dated-only"]) == EXIT_OK
    assert "~2026-10" in capsys.readouterr().out


def test_explain_says_the_date_is_approximate_and_cites_the_basis(published, capsys):
    [(fetch_id,)] = _q(published, "select fetch_id from intermediate.fetches "
                                  "where source = 'gcp_pricing_page'")
    assert main(["explain", "fetch", str(fetch_id)]) == EXIT_OK
    out = capsys.readouterr().out
    assert "observed at: 2026-10-01 00:00:00+00:00" in out
    assert "approximate: only the month is known (~2026-10" in out
    assert "basis option (given with --observed-at)" in out
    assert main(["explain", "fetch", str(fetch_id), "--format", "json"]) == EXIT_OK
    assert json.loads(capsys.readouterr().out)["observed_at_precision"] == "month"


def test_offers_list_resold_rows_marked_and_say_so(published, capsys):
    assert main(["offers", "H100:8"]) == EXIT_OK
    out = capsys.readouterr().out
    [resold] = [ln for ln in out.splitlines() if "lambdalabs_H100-sxm5x8" in ln]
    assert "shadeform (resells lambda)" in resold and " 3.99 " in resold
    assert "first-hand prices only" not in out
    assert "first-hand and resold prices (1 resold: an aggregator lists another provider's " \
           "machine, marked 'resells'; --no-resold leaves them out)" in out
    assert main(["offers", "H100:8", "--no-resold"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "lambdalabs_H100-sxm5x8" not in out and "gpu_8x_h100_sxm5" in out
    assert "first-hand prices only; 1 resold offer(s) left out (--no-resold" in out
    assert main(["offers", "H100:8", "--provider", "shadeform", "--no-resold"]) == EXIT_FAILED
    assert "1 resold offer(s) match, left out by --no-resold" in capsys.readouterr().out


def test_offers_from_python_include_resold_by_default(published):
    import gpucost

    every = gpucost.offers("H100:8")
    [resold] = every[every["listing_kind"] == "resold"].itertuples()
    assert (resold.provider, resold.seller, resold.sku) == ("shadeform", "lambda",
                                                           "lambdalabs_H100-sxm5x8")
    assert resold.price_per_gpu_hour == pytest.approx(31.92 / 8)
    assert every.attrs["resold_left_out"] == 0
    own = gpucost.offers("H100:8", include_resold=False)
    assert "resold" not in set(own["listing_kind"]) and len(own) == len(every) - 1
    assert own.attrs["resold_left_out"] == 1


def test_the_documented_load_dates_only_files_whose_readme_gives_a_period(shared_data):
    """flows/recorded.py: every per-file date names a recorded file of its feed, is a month,
    and the README beside the file says '≈ autumn 2026' of it."""
    from gpucost.flows.recorded import FEEDS, files_of

    dated = {(feed.source, name): when for feed in FEEDS for name, when in feed.dates.items()}
    assert dated == {
        ("runpod", "runpod_graphql_gpuTypes_d789fed.json"): "2026-10",
        ("vast", "vastai_bundles_offers_projected_1f5b058.json"): "2026-10",
        ("coreweave", "coreweave_pricing_ewyluda-078a789_excerpt_chars48000-80000.html"):
            "2026-10",
        ("gcp_pricing_page", "gcp_gpus-pricing_tables_ewyluda-1e77fb7.html"): "2026-10",
    }
    for feed in FEEDS:
        files = {p.name: p for p in files_of(feed, shared_data)}
        for name, when in feed.dates.items():
            assert name in files, (feed.source, name)
            assert parse_observed_at(when).precision == "month"
            readme = (files[name].parent.parent / "README.md").read_text()
            rows = [ln for ln in readme.splitlines() if name in ln and ln.startswith("|")
                    and "≈ autumn 2026" in ln]
            assert rows, (feed.source, name)
