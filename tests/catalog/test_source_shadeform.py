"""Shadeform's instance-types API (catalog/sources/shadeform.py).

No Shadeform answer is recorded in ../shared/data: tests/fixtures/shadeform/instance_types.json
is our own, in the documented shape (docs.shadeform.ai/api-reference/instances/instances-types).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpucost.catalog import secrets
from gpucost.catalog.records import (
    EmptyPayloadError,
    ParseError,
    Payload,
    SourceError,
)
from gpucost.catalog.sources import get, names, shadeform

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "shadeform" / "instance_types.json"


def _parse(content: bytes):  # type: ignore[no-untyped-def]
    return shadeform.parse(Payload(name="instance_types.json", content=content, ext="json"))


def _types(*entries: dict) -> bytes:
    return json.dumps({"instance_types": list(entries)}).encode()


def test_fixture_rows_per_region_with_stock() -> None:
    """Hand-read from the fixture: lambdalabs H100_sxm5x8 costs hourly_price 2390 (cents, for
    the whole 8-GPU instance) -> 23.90 USD/h, 23.90 / 8 = 2.9875 per GPU; it lists us-east-1
    available true and us-west-1 available false -> two rows. denvr A100_sxm4 (140 cents ->
    1.40 USD/h) lists no region -> one row, region "", available False. massedcompute L40S has
    hourly_price 0 -> a reject."""
    result = _parse(FIXTURE.read_bytes())
    assert result.stream == "instance_types_api"
    rows = {(p.sku, p.region): p for p in result.prices}
    assert sorted(rows) == [("denvr_A100-sxm4", ""), ("lambdalabs_H100-sxm5x8", "us-east-1"),
                            ("lambdalabs_H100-sxm5x8", "us-west-1")]
    east = rows[("lambdalabs_H100-sxm5x8", "us-east-1")]
    assert east.provider == "shadeform" and east.pricing_model == "on_demand"
    assert east.price_per_hour == pytest.approx(23.90)
    assert east.price_per_hour / east.gpu_count == pytest.approx(2.9875)
    assert (east.gpu_name_raw, east.gpu_count, east.gpu_memory_gb) == ("H100", 8, 80)
    assert (east.vcpus, east.ram_gb, east.currency) == (208, 1800, "USD")
    assert east.available is True
    assert rows[("lambdalabs_H100-sxm5x8", "us-west-1")].available is False
    a100 = rows[("denvr_A100-sxm4", "")]
    assert (a100.price_per_hour, a100.available, a100.gpu_memory_gb) == (1.40, False, 40)
    assert [(r.reason, r.detail) for r in result.rejects] == [
        ("zero_or_missing_price", "massedcompute_L40S: hourly_price 0")]


def test_sku_names_the_cloud_as_skypilot_does() -> None:
    """SkyPilot's vms.csv spells lambdalabs H100_sxm5x8 'lambdalabs_H100-sxm5x8' (aliases.csv
    maps that sku); its seller is the prefix the aggregator regex of providers.csv reads."""
    import csv
    import re

    providers = Path(__file__).resolve().parents[2] / "catalog" / "providers.csv"
    with providers.open(newline="") as f:
        row = next(r for r in csv.DictReader(f) if r["provider"] == "shadeform")
    assert row["listing_kind"] == "aggregator"
    sku = _parse(FIXTURE.read_bytes()).prices[0].sku
    assert re.match(row["sku_seller_regex"], sku.lower()).group(1) in {"lambdalabs", "denvr"}


def test_sku_spelling() -> None:
    assert shadeform.skypilot_name("A100_80G") == "A100-80GB"
    assert shadeform.skypilot_name("A100_80Gx8") == "A100-80GBx8"
    assert shadeform.skypilot_name("H100_sxm5x8") == "H100-sxm5x8"


def test_missing_availability_is_not_stated_and_bad_prices_are_rejected() -> None:
    base = {"cloud": "crusoe", "shade_instance_type": "H100",
            "configuration": {"num_gpus": 1, "gpu_type": "H100", "vram_per_gpu_in_gb": 80}}
    result = _parse(_types(
        {**base, "hourly_price": 399},  # no availability field
        {**base, "shade_instance_type": "H200", "hourly_price": None},
        {**base, "shade_instance_type": "B200", "hourly_price": "499"},
        {**base, "shade_instance_type": "A10", "hourly_price": -5},
        {**base, "shade_instance_type": "CPU", "configuration": {"num_gpus": 0},
         "hourly_price": 10},
    ))
    assert [(p.sku, p.region, p.available, p.price_per_hour) for p in result.prices] == [
        ("crusoe_H100", "", None, 3.99)]
    assert sorted(r.reason for r in result.rejects) == ["zero_or_missing_price"] * 3


def test_bad_documents_are_named() -> None:
    with pytest.raises(ParseError, match="instance_types"):
        _parse(b'{"data": []}')
    with pytest.raises(ParseError, match="not valid JSON"):
        _parse(b"<html></html>")
    with pytest.raises(EmptyPayloadError):
        _parse(b'{"instance_types": []}')


def test_registered_and_fails_fast_without_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "shadeform" in names("prices")
    monkeypatch.delenv("GPUCOST_SHADEFORM_API_KEY", raising=False)
    monkeypatch.setenv("GPUCOST_SOURCE_URL_SHADEFORM", "http://127.0.0.1:9/never-asked")
    with pytest.raises(SourceError, match="GPUCOST_SHADEFORM_API_KEY is not set") as info:
        get("shadeform").fetch()
    assert type(info.value).__name__ == "MissingApiKeyError"


def test_refresh_without_a_key_names_it_and_still_publishes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gpucost.flows.steps import refresh_plain

    monkeypatch.delenv("GPUCOST_SHADEFORM_API_KEY", raising=False)
    summary = refresh_plain(["shadeform"], data_dir=tmp_path)
    assert [(s.source, s.status, s.error_type) for s in summary.fetched] == [
        ("shadeform", "failed", "MissingApiKeyError")]
    assert summary.published


def test_key_is_sent_as_header_and_registered_for_redaction(
        monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sf-test-key-123456"
    monkeypatch.setenv("GPUCOST_SHADEFORM_API_KEY", key)
    monkeypatch.setenv("GPUCOST_SOURCE_URL_SHADEFORM", "http://127.0.0.1:9/types")
    from gpucost.catalog.sources.base import FetchContext

    source = get("shadeform")
    parts = list(shadeform._parts(FetchContext(source, None)))  # type: ignore[arg-type]
    assert parts[0].headers == {"X-API-KEY": key} and key not in parts[0].url
    assert secrets.redact(f"X-API-KEY: {key}") == "X-API-KEY: ***"


def test_a_refresh_of_every_source_fetches_shadeform_only_with_its_key(monkeypatch) -> None:
    # opt-in: without GPUCOST_SHADEFORM_API_KEY a refresh of every source leaves it out (it
    # would fail every time); named with --source, it is fetched and fails by name
    from gpucost.flows.steps import names_to_fetch

    monkeypatch.delenv("GPUCOST_SHADEFORM_API_KEY", raising=False)
    assert "shadeform" not in names_to_fetch(None, None)
    assert "shadeform" not in names_to_fetch(None, "prices")
    assert "lambda" in names_to_fetch(None, None)
    assert names_to_fetch(["shadeform"], None) == ["shadeform"]
    monkeypatch.setenv("GPUCOST_SHADEFORM_API_KEY", "sk-test-not-a-key")
    assert "shadeform" in names_to_fetch(None, None)


def test_refresh_says_which_keyed_source_it_left_out(monkeypatch, tmp_path: Path) -> None:
    # the summary of a refresh of every source names the source it did not fetch and the
    # variable that includes it, before the verdict; with the key set, or with sources
    # named, there is nothing to say
    import io

    from gpucost.flows.cli.refresh import _print_summary
    from gpucost.flows.steps import PublishResult, run_refresh, skipped_for_key

    monkeypatch.delenv("GPUCOST_SHADEFORM_API_KEY", raising=False)
    assert skipped_for_key(None, None) == ["shadeform"]
    assert skipped_for_key(None, "specs") == []
    assert skipped_for_key(["lambda"], None) == []
    summary = run_refresh([], lambda names, on_fetched: {}, tmp_path,
                          publish_step=lambda data_dir: PublishResult())
    out = io.StringIO()
    _print_summary(summary, out=out, skipped=skipped_for_key(None, None))
    lines = out.getvalue().splitlines()
    assert ("not fetched (an API that needs a key, not set): shadeform; "
            "set GPUCOST_SHADEFORM_API_KEY to include it") in lines[:-1]
    monkeypatch.setenv("GPUCOST_SHADEFORM_API_KEY", "sk-test-not-a-key")
    assert skipped_for_key(None, None) == []
