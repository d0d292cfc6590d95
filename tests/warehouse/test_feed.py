"""The change feed export, exports/price_changes.json (JSON Feed 1.1; warehouse/feed.py,
issue 39 item 5), from the recorded SkyPilot-format Lambda catalogs (../shared/data, read in
place).

Worked out by hand from the two files: lambda_vms_2026-04-02.csv lists `gpu_8x_h100_sxm5`
(8 H100) at 27.52 USD/h in each of its 17 regions, lambda_vms_2026-05-07.csv at 31.92:
27.52 / 8 = 3.44 -> 31.92 / 8 = 3.99 USD per GPU-hour, (31.92 / 27.52 - 1) x 100 = +15.99%,
observed 2026-05-07 (the date in the file name). The skypilot_format README counts 15
instance types whose price changed between the two files; one item each (a change listed in
all 17 regions is one item).
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from gpucost.flows.ingest import ingest_files

LAMBDA = "prices/skypilot_format/lambda_vms_{}.csv"


def _feed(data: Path) -> dict:
    return json.loads((data / "exports" / "price_changes.json").read_text(encoding="utf-8"))


def test_price_change_feed_from_the_recorded_lambda_pair(shared_data: Path,
                                                         tmp_path: Path) -> None:
    data = tmp_path / "wh"
    ingest_files("skypilot", [shared_data / LAMBDA.format("2026-04-02")], data_dir=data)
    assert _feed(data)["items"] == []  # one observation per offer: no change yet
    _, published = ingest_files("skypilot", [shared_data / LAMBDA.format("2026-05-07")],
                                data_dir=data)
    assert "price_changes.json" in published.exports
    feed = _feed(data)
    # JSON Feed 1.1: version, title, items; every item an id, content and a date
    assert feed["version"] == "https://jsonfeed.org/version/1.1"
    assert isinstance(feed["title"], str) and feed["title"]
    items = feed["items"]
    assert len(items) == 15
    assert len({i["id"] for i in items}) == len(items)
    for i in items:
        assert isinstance(i["id"], str) and i["title"] and i["content_text"]
        datetime.fromisoformat(i["date_published"])  # RFC 3339
        assert i["url"].startswith("https://")
        assert all(not k.startswith("_") or k == "_gpucost" for k in i)
    dates = [i["date_published"] for i in items]
    assert dates == sorted(dates, reverse=True)  # newest first
    [h100] = [i for i in items if i["_gpucost"]["sku"] == "gpu_8x_h100_sxm5"]
    assert h100["title"] == ("NVIDIA H100 SXM5 80GB x8 at lambda: gpu_8x_h100_sxm5 3.44 -> "
                             "3.99 USD/GPU-h (+16.0%)")
    assert h100["date_published"] == "2026-05-07T00:00:00+00:00"
    assert h100["id"] == ("gpucost:price-change:skypilot/lambda/gpu_8x_h100_sxm5/on_demand/"
                          "2026-05-07/27.52->31.92")
    figures = h100["_gpucost"]
    assert figures["old_price_per_gpu_hour"] == pytest.approx(3.44)
    assert figures["new_price_per_gpu_hour"] == pytest.approx(3.99)
    assert figures["change_pct"] == pytest.approx(15.988, abs=1e-3)
    assert len(figures["regions"]) == 17 and figures["previous_day"] == "2026-04-02"
    assert h100["url"] == ("https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/"
                           "master/catalogs/v8")

    # another publish (the same file again: nothing new) keeps every id: readers dedupe
    ingest_files("skypilot", [shared_data / LAMBDA.format("2026-05-07")], data_dir=data)
    assert [i["id"] for i in _feed(data)["items"]] == [i["id"] for i in items]
