"""`gpucost report`: one self-contained HTML file, rendered in headless Chromium.

Chromium (Debian's `chromium`, installed by `make test`) loads the page through the DevTools
protocol (tests/support/chromium.py): every chart must be drawn (an <svg data-chart> with a rendered
size and shapes in it), the page must request nothing but itself, and a scraped GPU name
holding `<script>` must show as text. A control page with an external image proves that the
request check sees requests. Set GPUCOST_REPORT_SCREENSHOTS=<dir> to keep the screenshots.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
from html.parser import HTMLParser
from pathlib import Path

import chromium
import duckdb
import pytest
from gpucost.flows import cli
from gpucost.flows.report import write_report
from gpucost.warehouse.publish import serving_path

EVIL = "<script>document.title='pwned'</script><b>X1</b>"
CHARTS = ("cost-per-eflop", "memory-per-dollar", "bandwidth-per-dollar", "price-history",
          "source-health")


@pytest.fixture(scope="module")
def browser():
    binary = chromium.find()
    if binary is None:
        if os.environ.get("CI") == "true" or os.geteuid() == 0:
            pytest.fail("chromium is not installed: `make test` installs Debian's chromium "
                        "package (or run: apt-get update && apt-get install -y chromium)")
        pytest.skip("chromium is not installed and this user cannot apt-get install it")
    b = chromium.Browser(binary, width=1280, height=1000)
    yield b
    b.close()


def _with_later_marts(src: Path, dst: Path) -> Path:
    """A copy of the warehouse with training_cost and price_history marts, shaped like the
    ones the cost-model and price-history work adds (the report must pick them up)."""
    dst.mkdir()
    shutil.copy(serving_path(src), serving_path(dst))
    con = duckdb.connect(str(serving_path(dst)))
    con.execute("""
        create or replace table training_cost as
        select scenarios.scenario, cost.accelerator_id, cost.price_basis, cost.provider,
            6 * scenarios.params * scenarios.tokens
                / (cost.peak_dense_tflops * 1e12 * 0.4) / 3600 * cost.price_per_gpu_hour
                as cost_usd
        from cost_per_flop as cost
        cross join (values ('7b-2t-tokens', 7e9, 2e12), ('405b-15.6t-tokens', 405e9, 15.6e12))
            as scenarios(scenario, params, tokens)
        where cost.precision = 'bf16' and cost.price_per_gpu_hour is not null
    """)
    con.execute("""
        create or replace table price_history as
        with daily as (
            select cast(offers.observed_at as date) as day, offers.accelerator_id,
                offers.provider, offers.pricing_model, offers.currency,
                min(offers.price_per_gpu_hour) as min_price_per_gpu_hour
            from gpu_offers as offers
            where offers.accelerator_id is not null and offers.price_per_gpu_hour > 0
            group by all
        )
        select daily.day - weeks.k * 7 as day, daily.accelerator_id, daily.provider,
            daily.pricing_model, daily.currency,
            daily.min_price_per_gpu_hour * (1 + 0.05 * weeks.k) as min_price_per_gpu_hour
        from daily
        cross join (values (0), (1), (2), (3)) as weeks(k)
    """)
    con.close()
    return dst


class _Refs(HTMLParser):
    """Every attribute or CSS that could make a browser load something."""

    def __init__(self) -> None:
        super().__init__()
        self.loads: list[str] = []
        self.tags: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):  # noqa: ANN001
        self.tags.append(tag)
        self._in_style = tag == "style"
        for name, value in attrs:
            value = value or ""
            if name in ("src", "srcset", "action", "formaction", "poster", "background",
                        "data", "xlink:href", "ping", "manifest"):
                self.loads.append(f"{tag} {name}={value}")
            # a link the reader clicks (the price table's source URLs) loads nothing; any
            # other href (link rel=stylesheet, svg use...) would
            if name == "href" and not value.startswith("#") and not (
                    tag == "a" and value.startswith(("https://", "http://"))):
                self.loads.append(f"{tag} href={value}")
            if name == "style" and ("url(" in value or "@import" in value):
                self.loads.append(f"{tag} style={value}")

    def handle_data(self, data):  # noqa: ANN001
        if self._in_style and ("url(" in data or "@import" in data):
            self.loads.append(f"style: {data[:80]}")

    def handle_endtag(self, tag):  # noqa: ANN001
        self._in_style = False


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def _keep(path: Path) -> None:
    keep = os.environ.get("GPUCOST_REPORT_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(keep) / path.name)


def test_report_is_self_contained_and_escapes_scraped_text(service_warehouse, tmp_path):
    html = write_report(service_warehouse, tmp_path / "report.html").read_text()
    refs = _Refs()
    refs.feed(html)
    assert refs.loads == []  # nothing that could load from anywhere
    assert "script" not in refs.tags and "iframe" not in refs.tags
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert "&lt;script&gt;document.title=&#x27;pwned&#x27;&lt;/script&gt;&lt;b&gt;X1" in html
    for chart in CHARTS:
        assert f'data-chart="{chart}"' in html
    # every publish builds training_cost and price_history: both are drawn, no stand-in panel
    assert 'data-chart="training-cost"' in html
    assert 'data-chart-missing="training-cost"' not in html
    assert "the price_history mart is not in this warehouse" not in html


def test_report_renders_in_chromium(browser, service_warehouse, tmp_path):
    later = _with_later_marts(service_warehouse, tmp_path / "later")
    pages = {
        "base": write_report(service_warehouse, tmp_path / "report-base.html"),
        "later": write_report(later, tmp_path / "report-later.html"),
    }
    for variant, path in pages.items():
        page = browser.load(path)
        assert page.requests() == [path.resolve().as_uri()], variant  # nothing but itself
        expected = CHARTS + ("training-cost",)
        drawn = {}
        for node in page.select("svg[data-chart]"):
            width, height = page.box(node)
            shapes = len(page.select("rect, path, circle", node))
            drawn.setdefault(page.attribute(node, "data-chart"), []).append(
                (width, height, shapes))
        for chart in expected:
            assert chart in drawn, f"{variant}: chart {chart} not in the rendered page"
            for width, height, shapes in drawn[chart]:
                # the fixture warehouse prices few platforms: one bar can be the whole chart
                least = 1 if chart == "training-cost" else 3
                assert width > 200 and height > 50 and shapes >= least, (variant, chart)
        # training_cost and price_history are real marts of every publish: both drawn
        assert page.select('[data-chart-missing="training-cost"]') == [], variant
        assert page.select('svg[data-chart="price-history"] path.series'), variant
        # the page leads with the price table: accelerator names, providers, per-GPU prices
        rows = page.select('table[data-table="prices"] tbody tr')
        assert rows, variant
        # the scraped GPU name is text: no element came out of it, and the title is ours
        assert page.select("script") == [] and page.select("td b") == []
        dom = page.html()
        assert "<title>gpucost report</title>" in dom
        assert "&lt;script&gt;document.title='pwned'&lt;/script&gt;&lt;b&gt;X1&lt;/b&gt;" in dom
        if variant == "later":  # every chart drawn: look at it (GPUCOST_REPORT_SCREENSHOTS)
            shot = page.screenshot(tmp_path / f"report-{variant}.png")
            _keep(shot)
            width, height = _png_size(shot)
            assert width >= 1000 and height > 2000
            assert shot.stat().st_size > 60_000  # a blank page compresses to a few KB


def test_request_check_sees_a_page_that_loads_from_outside(browser, tmp_path):
    page_path = tmp_path / "control.html"
    page_path.write_text('<html><body><img src="http://example.invalid/pixel.png">'
                         '<link rel="stylesheet" href="https://cdn.example.invalid/x.css">'
                         "</body></html>")
    requests = browser.load(page_path).requests()
    assert "http://example.invalid/pixel.png" in requests
    assert "https://cdn.example.invalid/x.css" in requests


def test_report_reads_later_marts_by_column_role(service_warehouse, tmp_path):
    """A training_cost / price_history mart whose columns the report cannot place gives a
    clear 'not available' panel / the fallback chart, never a crash."""
    dst = tmp_path / "odd"
    dst.mkdir()
    shutil.copy(serving_path(service_warehouse), serving_path(dst))
    con = duckdb.connect(str(serving_path(dst)))
    con.execute("create or replace table training_cost as select 'x' as thing, 1.0 as amount")
    con.execute(
        "create or replace table price_history as select current_date as when_, 'a' as what")
    con.close()
    html = write_report(dst, tmp_path / "odd.html").read_text()
    assert "training_cost has no recognisable scenario / cost columns" in html
    assert "thing, amount" in html
    assert "the price_history mart has no recognisable date/price columns" in html
    assert 'data-chart="price-history"' in html


def test_report_command(service_warehouse, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(tmp_path / "empty"))
    assert cli.main(["report"]) == 1
    assert "no published warehouse" in capsys.readouterr().err
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(service_warehouse))
    out = tmp_path / "out" / "dash.html"
    assert cli.main(["report", "-o", str(out)]) == 0
    assert out.is_file() and oct(out.stat().st_mode & 0o777) != "0o600"


def test_report_leads_with_prices_and_draws_a_line_per_provider(service_warehouse, tmp_path):
    """The price table names the accelerator as people read it and the per-GPU price of
    SkyPilot's Lambda catalog of 2026-03-08 (27.92 / 8 = 3.490); the history draws one line
    per provider (lambda: 3.49 on 2026-03-01 and 03-08 in the fixtures), no crosscheck."""
    html = write_report(service_warehouse, tmp_path / "report.html").read_text()
    assert html.index('data-table="prices"') < html.index('data-chart="cost-per-eflop"')
    assert ("<td>NVIDIA H100 SXM5 80GB</td><td>lambda</td><td class=\"num\">3.490</td>"
            in html)
    assert "<td></td><td><a" not in html  # an unknown age says so, never a blank cell
    # reference prices count, marked and linked to the page they were typed from: RunPod's
    # on-demand H100 SXM, 2.99 (catalog/reference_prices.csv, 2026-08-10)
    assert ('<td>NVIDIA H100 SXM5 80GB</td><td>runpod</td><td class="num">2.990</td>'
            '<td>H100 SXM</td>' in html)
    assert '<a href="https://www.runpod.io/pricing">reference</a>' in html
    history = html[html.index('<section id="history">'):]
    history = history[:history.index("</section>")]
    titles = re.findall(r'<path class="series"[^>]*><title>([^<]+)</title>', history)
    assert titles and "lambda" in titles and "(crosscheck)" not in history
    assert "carried forward" in history


def test_training_panel_ranks_feasible_platforms_at_a_scenarios_own_price():
    """Issue 11: a platform that cannot train the model is not ranked, and a scenario priced
    at its own price (basis 'given') is drawn at it, not dropped for lacking a market basis."""
    from gpucost.flows.report import _training_panel

    con = duckdb.connect()
    con.execute("""
        create table training_cost as select * replace (cast(cost_usd as double) as cost_usd)
        from (values
            ('405b', 'rtx-4090', 'on_demand_min', 'lium', 1.0, false),
            ('405b', 'h100', 'on_demand_min', 'lambda', 2.0, true),
            ('405b', 'h100', 'spot_min', 'vast', 0.5, true),
            ('seed-2usd', 'h100', 'given', null, 53.2, true)
        ) as t(scenario_id, accelerator_id, price_basis, provider, cost_usd, feasible)
    """)
    panel = _training_panel(con, {"training_cost"})
    assert panel.rows == [("405b", "h100 @ lambda", 2.0), ("seed-2usd", "h100", 53.2)]
    assert "that can train the model" in panel.note
