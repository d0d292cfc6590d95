"""`gpucost offers` and `gpucost explain fetch` on the service warehouse (tests/conftest.py):
SkyPilot's Lambda catalog of 2026-03-08 lists gpu_8x_h100_sxm5 at 27.92 USD/h, 3.49 per GPU."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpucost.flows.cli.main import main
from gpucost.flows.cli.output import EXIT_FAILED, EXIT_OK, EXIT_USAGE


@pytest.fixture
def published(service_warehouse: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(service_warehouse))
    return service_warehouse


def test_offers_json_names_price_count_age_and_source(published, capsys) -> None:
    assert main(["offers", "H100", "--format", "json"]) == EXIT_OK
    rows = json.loads(capsys.readouterr().out)
    h100 = [r for r in rows if r["sku"] == "gpu_8x_h100_sxm5"]
    assert len(h100) == 1
    row = h100[0]
    assert row["price_per_gpu_hour"] == pytest.approx(27.92 / 8) == pytest.approx(3.49)
    assert (row["provider"], row["gpu_count"], row["pricing_model"]) == ("lambda", 8.0,
                                                                         "on_demand")
    assert row["source"] == "skypilot" and row["source_kind"] == "first_hand"
    assert row["observed_at"].startswith("2026-03-08") and row["age_days"] > 200
    assert row["source_url"].startswith("https://") and row["fetch_id"] > 0
    for key in ("region", "sku", "provider", "pricing_model", "price_per_gpu_hour",
                "gpu_count", "observed_at", "age_days", "source", "source_url"):
        assert key in row


def test_offers_table_filters_and_explain_fetch(published, capsys) -> None:
    assert main(["offers", "H100:8", "--max-price", "4"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "gpu_8x_h100_sxm5" in out and "3.49" in out and "first-hand prices only" in out
    assert main(["offers", "H100:8", "--max-price", "3"]) == EXIT_FAILED
    assert "no on-demand offer in force" in capsys.readouterr().out
    assert main(["offers", "H100:x"]) == EXIT_USAGE
    assert "whole number" in capsys.readouterr().err
    main(["offers", "H100", "--format", "json"])
    fetch_id = json.loads(capsys.readouterr().out)[0]["fetch_id"]
    assert main(["explain", "fetch", str(fetch_id)]) == EXIT_OK
    out = capsys.readouterr().out
    assert f"fetch {fetch_id}: skypilot / lambda" in out
    assert "payload:     raw/skypilot/" in out and "in force:" in out
    assert "gpu_8x_h100_sxm5" in out


def test_offers_csv_is_rfc4180_and_the_frame_exactly(published, capsys) -> None:
    """`--format csv`: CRLF line ends, the columns of gpucost.offers(), the same bytes as
    pandas' to_csv of that frame (lineterminator CRLF), times as pandas writes them."""
    import io

    import gpucost
    from gpucost.flows.cli.offers import COLUMNS

    assert main(["offers", "H100:8", "--format", "csv"]) == EXIT_OK
    out = capsys.readouterr().out
    expected = io.StringIO()
    gpucost.offers("H100:8").to_csv(expected, index=False, lineterminator="\r\n")
    assert out == expected.getvalue()
    lines = out.split("\r\n")
    assert lines[0] == ",".join(COLUMNS) and lines[-1] == ""
    [h100] = [line for line in lines if ",gpu_8x_h100_sxm5," in line]
    assert ",on_demand,3.49,27.92,8.0," in h100 and ",2026-03-08 00:00:00+00:00,True," in h100


def test_explain_formats_table_text_csv_json(published, capsys) -> None:
    """explain fetch: table is the default and `text` (its former name) the same output;
    csv the fetch as one row; json with the offers and ISO times."""
    import csv
    import io

    main(["offers", "H100:8", "--format", "json"])
    fetch_id = str(json.loads(capsys.readouterr().out)[0]["fetch_id"])
    assert main(["explain", "fetch", fetch_id]) == EXIT_OK
    table = capsys.readouterr().out
    for fmt in ("table", "text"):
        assert main(["explain", "fetch", fetch_id, "--format", fmt]) == EXIT_OK
        assert capsys.readouterr().out == table
    assert main(["explain", "fetch", fetch_id, "--format", "csv"]) == EXIT_OK
    header, row = csv.reader(io.StringIO(capsys.readouterr().out))
    got = dict(zip(header, row, strict=True))
    assert (got["fetch_id"], got["source"], got["stream"]) == (fetch_id, "skypilot", "lambda")
    assert int(got["offers_in_force"]) > 0 and header[-1] == "offers_in_force"
    assert main(["explain", "fetch", fetch_id, "--format", "json"]) == EXIT_OK
    found = json.loads(capsys.readouterr().out)
    assert found["observed_at"] == "2026-03-08T00:00:00+00:00"
    assert found["offers_in_force"] == int(got["offers_in_force"])
    assert "gpu_8x_h100_sxm5" in {o["sku"] for o in found["offers_sample"]}


def test_offers_from_python(published) -> None:
    import gpucost

    frame = gpucost.offers("H100:8", max_price=4.0)
    assert list(frame["sku"]) == ["gpu_8x_h100_sxm5"]
    assert frame["price_per_gpu_hour"][0] == pytest.approx(3.49)


def test_offers_says_what_the_reference_prices_hold(published, capsys) -> None:
    """No first-hand MI300X offer is in this warehouse; the reference catalog holds Azure's
    ND96isr MI300X v5 at 48 USD/h for 8 GPUs (2026-05-20): the empty answer says so and names
    the option, which lists it at 6 USD per GPU-hour."""
    assert main(["offers", "MI300X"]) == EXIT_FAILED
    out = capsys.readouterr().out
    assert "no on-demand offer in force matches 'MI300X' among first-hand prices" in out
    assert "curated reference price(s) (--include-reference lists them) match" in out
    assert main(["offers", "MI300X", "--include-reference", "--format", "json"]) == EXIT_OK
    rows = json.loads(capsys.readouterr().out)
    azure = [r for r in rows if r["provider"] == "azure"]
    assert [(r["sku"], r["source_kind"], r["price_per_gpu_hour"]) for r in azure] == [
        ("Standard_ND96isr_MI300X_v5", "reference", pytest.approx(6.0))]
    assert main(["offers", "MI300X", "--include-reference"]) == EXIT_OK
    assert "first-hand and reference prices" in capsys.readouterr().out
