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

from gpucost.flows.cli import main as cli
from gpucost.flows.cli.report import write_report
from gpucost.warehouse.publish import serving_path

EVIL = "<script>document.title='pwned'</script><b>X1</b>"
CHARTS = ("cost-per-eflop", "memory-per-dollar", "bandwidth-per-dollar", "price-history",
          "source-health")


@pytest.fixture(scope="module")
def browser():
    binary = chromium.find()
    if binary is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is not installed: .ci/run installs Debian's chromium package "
                        "(or run: apt-get update && apt-get install -y chromium)")
        pytest.skip("no chromium on PATH (Debian's chromium package): the report is not "
                    "rendered here; CI installs it and runs this test")
    b = chromium.Browser(binary, width=1280, height=1000)
    yield b
    b.close()


def _with_later_marts(src: Path, dst: Path) -> Path:
    """A copy of the warehouse with other training_cost and price_history marts (four weeks
    of history), with the columns docs/tables.md documents (the report reads those)."""
    dst.mkdir()
    shutil.copy(serving_path(src), serving_path(dst))
    con = duckdb.connect(str(serving_path(dst)))
    con.execute("""
        create or replace table training_cost as
        select scenarios.scenario as scenario_id, cost.accelerator_id, cost.price_basis,
            cost.provider,
            6 * scenarios.params * scenarios.tokens
                / (cost.peak_dense_tflops * 1e12 * 0.4) / 3600 * cost.price_per_gpu_hour
                as cost_usd,
            true as feasible, true as basis_fits_node, cost.observed_at
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
                min(offers.price_per_gpu_hour) as price_per_gpu_hour
            from gpu_offers as offers
            where offers.accelerator_id is not null and offers.price_per_gpu_hour > 0
                and offers.observed_at is not null and offers.source_kind = 'first_hand'
            group by all
        )
        select daily.day - weeks.k * 7 as day, daily.accelerator_id, daily.provider,
            daily.pricing_model, daily.currency,
            daily.price_per_gpu_hour * (1 + 0.05 * weeks.k) as price_per_gpu_hour,
            'first_hand' as source_kind
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


# every <text> of every chart, measured by Chromium: the ones that stick out of their <svg>
# (a clipped name), and every chart wider than its section (drawn over the page's edge)
_CLIPPED_JS = """(() => {
  const out = [];
  for (const svg of document.querySelectorAll('svg[data-chart]')) {
    const width = svg.viewBox.baseVal.width, height = svg.viewBox.baseVal.height;
    for (const t of svg.querySelectorAll('text')) {
      const b = t.getBBox();
      if (b.x < -0.5 || b.y < -0.5 || b.x + b.width > width + 0.5
          || b.y + b.height > height + 0.5)
        out.push(svg.dataset.chart + ': ' + t.textContent);
    }
    const s = svg.closest('section');
    if (s && svg.getBoundingClientRect().right > s.getBoundingClientRect().right + 0.5)
      out.push(svg.dataset.chart + ': wider than its section');
  }
  return out;
})()"""


def _clipped(page: chromium.Page) -> list[str]:
    """Texts of the rendered charts that do not fit their chart (DevTools evaluates this: the
    page itself runs no script)."""
    result = page.call("Runtime.evaluate", {"expression": _CLIPPED_JS, "returnByValue": True})
    return result["result"]["value"]


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
        assert _clipped(page) == [], variant  # every name fully inside its chart
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


def test_a_warehouse_without_a_mart_gives_a_not_available_panel(service_warehouse, tmp_path):
    """The report reads the marts by their documented columns (docs/tables.md). A warehouse
    built before a mart existed (here without training_cost and price_history) gives a clear
    'not available' panel for each chart that reads it, never a crash; the others are drawn."""
    dst = tmp_path / "older"
    dst.mkdir()
    shutil.copy(serving_path(service_warehouse), serving_path(dst))
    con = duckdb.connect(str(serving_path(dst)))
    con.execute("drop table training_cost")
    con.execute("drop table price_history")
    con.close()
    html = write_report(dst, tmp_path / "older.html").read_text()
    for chart, mart in (("training-cost", "training_cost"), ("price-history", "price_history")):
        section = html[html.index(f'data-chart-missing="{chart}"'):]
        assert section.startswith(f'data-chart-missing="{chart}">the {mart} mart is not in '
                                  "this warehouse</div>"), chart
        assert f'<svg data-chart="{chart}"' not in html
    for chart in ("cost-per-eflop", "memory-per-dollar", "source-health"):
        assert f'<svg data-chart="{chart}"' in html


def test_the_banner_counts_only_failing_sources_as_failing(service_warehouse, tmp_path):
    """Source health `failing` (the last fetch failed) is a failure; `stale` (live data older
    than `gpucost sources --max-age-days`, 2 days by default) is old data, not a failure: the
    banner names the failing sources and counts apart those with data older than 7 days.
    Here: azure's fetch was refused (failing), skypilot's data is live but 3.5 days old
    (stale: not named), lambda's is live and 9.3 days old (stale and older than 7 days)."""
    from gpucost.flows.cli.report.panels import banner, tables
    from gpucost.flows.cli.sources import source_rows

    dst = tmp_path / "health"
    dst.mkdir()
    shutil.copy(serving_path(service_warehouse), serving_path(dst))
    con = duckdb.connect(str(serving_path(dst)))
    con.execute("update source_health set last_status = 'failed' where source = 'azure'")
    con.execute("update source_health set last_status = 'ok', data_origin = 'live', "
                "data_age_days = 3.5 where source = 'skypilot'")
    con.execute("update source_health set last_status = 'ok', data_origin = 'live', "
                "data_age_days = 9.3 where source = 'lambda'")
    con.execute("update source_health set data_age_days = 1.0 "
                "where source not in ('skypilot', 'lambda')")
    health = {r["source"]: r["health"] for r in source_rows(con)}
    assert (health["azure"], health["skypilot"], health["lambda"]) == (
        "failing", "stale", "stale")
    assert banner(con, tables(con)) == (
        "1 source(s) failing: azure; 1 source(s) with data older than 7 days "
        "(oldest: lambda, 9.3 d)")
    con.close()
    html = write_report(dst, tmp_path / "health.html").read_text()
    assert ('<div class="banner" data-banner="freshness">Data freshness: 1 source(s) '
            "failing: azure; 1 source(s) with data older than 7 days (oldest: lambda, 9.3 d). "
            "`gpucost sources` says more.</div>") in html
    # the health colours stay: failing red, stale yellow
    assert 'fill="#e15759"><title>azure: failing' in html
    assert 'fill="#edc948"><title>skypilot: stale' in html


def test_report_command(service_warehouse, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(tmp_path / "empty"))
    assert cli.main(["report"]) == 1
    assert "no published warehouse" in capsys.readouterr().err
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(service_warehouse))
    out = tmp_path / "out" / "dash.html"
    assert cli.main(["report", "-o", str(out)]) == 0
    assert out.is_file() and oct(out.stat().st_mode & 0o777) != "0o600"


def test_report_leads_with_prices_and_draws_a_line_per_provider(service_warehouse, tmp_path):
    """The price table names the accelerator as people read it and each seller at its newest
    price: Lambda's is the reference price typed from its catalog of 2026-05-07 (31.92 / 8 =
    3.990), newer than the fixtures' SkyPilot Lambda catalog of 2026-03-08 (3.490); AWS's
    newest (the reference 55.04 / 8 of 2025-06-05) is more than 180 days behind Oracle's of
    2026-10-01: stale, after the fresh sellers. The history draws one line per provider
    (lambda: 3.49 on 2026-03-01 and 03-08 in the fixtures), no crosscheck."""
    html = write_report(service_warehouse, tmp_path / "report.html").read_text()
    assert html.index('data-table="prices"') < html.index('data-chart="cost-per-eflop"')
    assert ("<td>NVIDIA H100 SXM5 80GB</td><td>lambda</td><td class=\"num\">3.990</td>"
            in html)
    assert ('<tr class="stale" data-dated="true"><td>NVIDIA H100 SXM5 80GB</td><td>aws</td>'
            '<td class="num">6.880</td>' in html)
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
    from gpucost.flows.cli.report.panels import training_panel

    con = duckdb.connect()
    con.execute("""
        create table training_cost as select * replace (
            cast(cost_usd as double) as cost_usd, cast(observed_at as timestamptz) as observed_at)
        from (values
            ('405b', 'rtx-4090', 'on_demand_min', 'lium', 1.0, false, true, '2026-10-01'),
            ('405b', 'h100', 'on_demand_min', 'lambda', 2.0, true, true, '2026-05-07'),
            ('405b', 'h100', 'spot_min', 'vast', 0.5, true, true, '2026-04-29'),
            -- an undated price (a file replayed without a date) never leads; marked
            ('405b', 'a800', 'on_demand_min', 'cudo', 1.5, true, true, null),
            -- a 1-GPU box never prices a multi-node plan
            ('405b', 'a40', 'on_demand_min', 'runpod', 0.9, true, false, '2026-10-01'),
            ('seed-2usd', 'h100', 'given', null, 53.2, true, null, null)
        ) as t(scenario_id, accelerator_id, price_basis, provider, cost_usd, feasible,
               basis_fits_node, observed_at)
    """)
    panel = training_panel(con, {"training_cost"})
    assert panel.rows == [("405b", "h100 @ lambda", 2.0), ("405b", "a800 @ cudo (undated)", 1.5),
                          ("seed-2usd", "h100", 53.2)]
    assert "that can train the model" in panel.note


# ---- issue 24, item 8: dated before undated, history per seller, the basis of each chart ----
def _section_html(html: str, anchor: str) -> str:
    part = html[html.index(f'<section id="{anchor}">'):]
    return part[:part.index("</section>")]


def _undated_catalog(tmp_path: Path) -> Path:
    """A SkyPilot catalog of Cudo without any date (no --observed-at, none in its name) whose
    8x H100 SXM is far cheaper per GPU (8.00 / 8 = 1.000) than any dated offer."""
    path = tmp_path / "cudo_vms.csv"
    path.write_text(
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,"
        "SpotPrice\n"
        "h100-sxm-8x-cheap,H100-SXM,8.0,96.0,960.0,8.00,no-luxembourg1,,\n")
    return path


@pytest.fixture(scope="module")
def dated_and_undated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Lambda's dated catalog of 2026-03-08 (H100 SXM 27.92 / 8 = 3.490 per GPU) and Cudo's
    undated one (1.000 per GPU); published once."""
    from datetime import UTC, datetime

    from gpucost.flows.ingest import ingest_files
    from gpucost.flows.steps import build_and_publish

    data = tmp_path_factory.mktemp("dated-undated")
    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    ingest_files("skypilot", [fixtures / "service" / "lambda_vms_2026-03-08.csv"],
                 observed_at=datetime(2026, 3, 8, tzinfo=UTC), data_dir=data, rebuild=False)
    ingest_files("skypilot", [_undated_catalog(data)], data_dir=data, rebuild=False)
    build_and_publish(data)
    return data


def _price_rows(html: str) -> list[tuple[str, str, str, str, str]]:
    """(data-dated, accelerator, provider, price, age) per row of the "rent now" table."""
    table = html[html.index('data-table="prices"'):]
    table = table[:table.index("</table>")]
    return re.findall(r'<tr[^>]*data-dated="(\w+)"><td>([^<]*)</td><td>([^<]*)</td>'
                      r'<td class="num">([^<]*)</td><td>[^<]*</td><td class="age"[^>]*>'
                      r"([^<]*)</td>", table)


def test_rent_now_lists_dated_offers_first_and_marks_undated(dated_and_undated, tmp_path):
    """Cudo's undated 1.000 is cheaper than Lambda's dated 3.990 (its newest: the reference
    price of 2026-05-07, newer than the fixture catalog's 3.490) but is not a current price:
    it comes after every dated H100 SXM row, marked "date unknown"; the dated row says its
    age; across the whole table no undated row precedes a dated one of its accelerator."""
    con = duckdb.connect(str(serving_path(dated_and_undated)), read_only=True)
    [(known,)] = con.execute("select observed_at_known from gpu_offers "
                             "where provider = 'cudo' and sku = 'h100-sxm-8x-cheap'").fetchall()
    con.close()
    assert known is False  # the premise: the marts hold the Cudo offer as undated
    html = write_report(dated_and_undated, tmp_path / "report.html").read_text()
    rows = _price_rows(html)
    h100 = [r for r in rows if r[1] == "NVIDIA H100 SXM5 80GB"]
    providers = [r[2] for r in h100]
    assert "lambda" in providers and "cudo" in providers
    lam, cudo = h100[providers.index("lambda")], h100[providers.index("cudo")]
    assert providers.index("lambda") < providers.index("cudo")
    assert lam[0] == "true" and lam[3] == "3.990" and lam[4].endswith(" d")
    assert cudo[0] == "false" and cudo[3] == "1.000" and cudo[4] == "date unknown"
    for acc in {r[1] for r in rows}:
        flags = [r[0] for r in rows if r[1] == acc]
        assert flags == sorted(flags, reverse=True), acc  # every "true" before any "false"
    assert '<tr class="undated" data-dated="false">' in html
    # the history holds no undated price: Cudo is not drawn
    assert "cudo" not in _section_html(html, "history")


@pytest.fixture(scope="module")
def aws_history(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """AWS's recorded p5.48xlarge us-east-1 on-demand history (98.32 an hour, 12.29 per GPU,
    until 2025-06-04; 55.04, 6.88 per GPU, from 2025-06-05: the -44% cut), Lambda's dated
    catalog of 2026-03-08 and Cudo's undated one; published once."""
    from datetime import UTC, datetime

    from gpucost.flows.ingest import ingest_files
    from gpucost.flows.steps import build_and_publish

    data = tmp_path_factory.mktemp("aws-history")
    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    ingest_files("aws", [shared_data / "prices" / "aws_price_list"
                         / "p5.48xlarge_us-east-1_ondemand_history.csv"],
                 data_dir=data, rebuild=False)
    ingest_files("skypilot", [fixtures / "service" / "lambda_vms_2026-03-08.csv"],
                 observed_at=datetime(2026, 3, 8, tzinfo=UTC), data_dir=data, rebuild=False)
    ingest_files("skypilot", [_undated_catalog(data)], data_dir=data, rebuild=False)
    build_and_publish(data)
    return data


def test_history_draws_one_line_per_seller_with_the_aws_cut(aws_history, tmp_path):
    """The H100 SXM history: one step line per seller (aws, lambda), none for the undated
    Cudo offer; AWS's line has a point at 12.290 (before the cut) and one at 6.880 (from
    2025-06-05), so the cut is drawn as a step, not a column of dots on one day."""
    html = write_report(aws_history, tmp_path / "report.html").read_text()
    history = _section_html(html, "history")
    assert "NVIDIA H100 SXM5 80GB" in history
    titles = re.findall(r'<path class="series"[^>]*><title>([^<]+)</title>', history)
    assert sorted(titles) == ["aws", "lambda"]  # one series per seller, no undated one
    points = re.findall(r"<circle[^>]*><title>aws (\d{4}-\d\d-\d\d): \$([\d.]+)/GPU-hour",
                        history)
    prices = {price for _, price in points}
    assert {"12.290", "6.880"} <= prices
    first_cut = min(day for day, price in points if price == "6.880")
    assert first_cut == "2025-06-05"
    assert len({day for day, _ in points}) >= 2  # at different days, not one column
    # the step: the path goes down from 12.29 to 6.88 at the day of the cut
    aws_path = re.search(r'<path class="series" d="([^"]+)"[^>]*><title>aws</title>', history)
    ys = {float(pt.split(",")[1]) for pt in aws_path.group(1).replace("M", "L").split("L")
          if pt}
    assert len(ys) == 2
    assert "Price basis: on-demand" in history


PRICE_CHARTS = ("price-table", "cost-per-eflop", "memory-per-dollar", "bandwidth-per-dollar",
                "price-history", "training-cost")


def test_every_chart_caption_names_its_price_basis(service_warehouse, tmp_path):
    """Each chart (and the price table) carries a caption naming the price basis it uses:
    on_demand_min for the cost, per-dollar and training charts (the preferred basis), the
    on-demand pricing model for the history and the table; the source-health chart says it
    draws no price."""
    html = write_report(service_warehouse, tmp_path / "report.html").read_text()
    captions = dict(re.findall(r'<p class="basis" data-basis-for="([^"]+)">([^<]+)</p>', html))
    charts = set(re.findall(r'<svg data-chart="([^"]+)"', html))
    assert charts <= set(captions), charts - set(captions)
    for chart in PRICE_CHARTS:
        assert captions[chart].startswith("Price basis: "), chart
        assert "on_demand_min" in captions[chart] or "on-demand" in captions[chart], chart
    for chart in ("cost-per-eflop", "memory-per-dollar", "bandwidth-per-dollar",
                  "training-cost"):
        assert captions[chart].startswith("Price basis: on_demand_min: "), chart
    assert captions["source-health"].startswith("Price basis: none")
    # each caption sits in its chart's section, before the chart
    for chart in ("cost-per-eflop", "price-history", "training-cost"):
        caption = html.index(f'data-basis-for="{chart}"')
        assert caption < html.index(f'<svg data-chart="{chart}"')


def test_measured_tokens_are_priced_on_demand_and_say_so():
    """The measured-tokens chart uses the on-demand basis (on_demand_min) even where a spot or
    community price is cheaper, falls back to owned (then the analyst's survey) only for an
    accelerator without an on-demand price, and its caption and bars name the basis."""
    from gpucost.flows.cli.report.panels import measured_panel
    from gpucost.flows.cli.report.svg import measured_chart

    con = duckdb.connect()
    con.execute("""
        create table inference_measured as
        select benchmark, accelerator_id, accelerator_name,
            cast(usd as double) as usd_per_million_output_tokens, price_basis, basis_kind,
            display_rank, true as comparable, 'Offline' as scenario, 'v5.1' as round,
            'x' as submitter, 'vLLM' as software_family, null::varchar as provider,
            1000.0 as tokens_per_second_per_accelerator,
            case when price_basis = 'owned' or accelerator_id = 'gaudi2' then null
                else timestamptz '2026-10-01' end as price_observed_at
        from (values
            ('llama2-70b', 'h100', 'NVIDIA H100', 0.10, 'on_demand_min', 'observed', 0),
            ('llama2-70b', 'h100', 'NVIDIA H100', 0.04, 'spot_min', 'observed', 0),
            ('llama2-70b', 'h100', 'NVIDIA H100', 0.05, 'community_min', 'observed', 0),
            ('llama2-70b', 'gb300', 'NVIDIA GB300', 0.30, 'owned', 'owned', 1),
            ('llama2-70b', 'gb300', 'NVIDIA GB300', 0.20, 'tco_neocloud', 'owned', null),
            ('llama2-70b', 'mi325x', 'AMD MI325X', 0.12, 'rental_3y_survey', 'estimated', 2),
            -- priced by an undated offer (a catalog known by its commit only): marked
            ('llama2-70b', 'gaudi2', 'Intel Gaudi 2', 0.30, 'on_demand_min', 'observed', 0)
        ) as t(benchmark, accelerator_id, accelerator_name, usd, price_basis, basis_kind,
               display_rank)
    """)
    panel = measured_panel(con, {"inference_measured"})
    got = {(r[1], r[2], r[6]) for r in panel.rows}
    assert got == {("NVIDIA H100", 0.10, "on_demand_min"), ("NVIDIA GB300", 0.30, "owned"),
                   ("AMD MI325X", 0.12, "rental_3y_survey"),
                   ("Intel Gaudi 2 (undated price)", 0.30, "on_demand_min")}
    assert panel.basis.startswith("Price basis: on_demand_min: ")
    assert "spot" not in panel.basis.lower()
    svg = measured_chart(panel)
    assert "$0.1 (on-demand)" in svg and "$0.3 (owned cost)" in svg
    assert "(3-year rental survey)" in svg


def test_long_names_get_the_room_they_need():
    """A chart's label column is as wide as its longest name (the Chromium test checks the
    drawn page; this checks the arithmetic on the longest catalog name)."""
    from gpucost.flows.cli.report.panels import Panel
    from gpucost.flows.cli.report.svg import bars, heatmap_cost, history_chart, text_width

    long = "NVIDIA RTX PRO 6000 Blackwell (Server / Workstation Edition)"
    svg = bars("memory-per-dollar", "x", [(long, 53.3, "#000", ""), ("T4", 45.7, "#000", "")],
               "GB")
    x = float(re.search(r'<rect class="bar" x="([\d.]+)"', svg).group(1))
    assert x - 6 >= text_width(long)
    svg = heatmap_cost(Panel(rows=[(long, "bf16", 0.99, "x"), ("T4", "fp16", 1.5, "y")]))
    x = float(re.search(r'<rect class="cell" x="([\d.]+)"', svg).group(1))
    assert x - 7 >= text_width(long)
    from datetime import date
    seller = "a-seller-with-a-really-quite-long-name-indeed"
    svg = history_chart(Panel(rows=[(seller, date(2026, 1, 1), 2.0),
                                    (seller, date(2026, 2, 1), 1.0)]))
    width = int(re.search(r'<svg[^>]* width="(\d+)"', svg).group(1))
    legend_x = max(float(x) for x in re.findall(r'<text x="([\d.]+)"[^>]*>' + seller, svg))
    assert legend_x + text_width(seller) <= width


def test_per_dollar_and_cost_per_flop_put_dated_prices_first_and_mark_undated_ones():
    """A price without a date is not a current price. Cudo's A800 PCIe at 0.8236 USD/GPU-h
    (a SkyPilot catalog known by its commit only): 80 GB / 0.8236 = 97.1 GB per USD-hour,
    above the dated H100 (80 / 3.99 = 20.1); it is drawn after every dated bar all the same,
    and both charts label it '(undated)'."""
    from gpucost.flows.cli.report.panels import MAX_ROWS, cost_panel, per_dollar_panel

    con = duckdb.connect()
    con.execute("create table accelerators as select * from (values ('a800', 'NVIDIA A800'), "
                "('a40', 'NVIDIA A40'), ('h100', 'NVIDIA H100')) as t(accelerator_id, name)")
    con.execute("""
        create table memory_per_dollar as select accelerator_id, 'on_demand_min' as price_basis,
            gb / price as gb_per_usd_hour, price as price_per_gpu_hour, provider,
            cast(observed as timestamptz) as observed_at
        from (values ('a800', 80.0, 0.8236, 'cudo', null), ('a40', 48.0, 0.49, 'runpod',
                      '2026-10-01'), ('h100', 80.0, 3.99, 'lambda', '2026-05-07'))
            as t(accelerator_id, gb, price, provider, observed)
    """)
    panel = per_dollar_panel(con, {"memory_per_dollar", "accelerators"}, "memory_per_dollar",
                             "gb_per_usd_hour")
    assert [(r[0], round(r[1], 1)) for r in panel.rows] == [
        ("NVIDIA A40", 98.0), ("NVIDIA H100", 20.1), ("NVIDIA A800 (undated)", 97.1)]
    assert MAX_ROWS >= 3 and "dated prices first" in panel.note
    con.execute("""
        create table cost_per_flop as select accelerator_id, 'on_demand_min' as price_basis,
            'bf16' as precision, usd as usd_per_eflop_peak, provider,
            cast(observed as timestamptz) as observed_at
        from (values ('a800', 0.7336, 'cudo', null), ('h100', 1.12, 'lambda', '2026-05-07'))
            as t(accelerator_id, usd, provider, observed)
    """)
    rows = cost_panel(con, {"cost_per_flop", "accelerators"}).rows
    assert sorted(r[0] for r in rows) == ["NVIDIA A800 (undated)", "NVIDIA H100"]
