"""The report's page: HTML, CSS and the Content-Security-Policy around the charts.

`render` lays the panels (panels.py) and their charts (svg.py) out as one self-contained
page: inline styles, no script, no font, no image, and a CSP meta tag that forbids every
external load. It leads with the "rent now" table (a dated offer with its age, an undated one
marked "date unknown"), then one section per chart, each with the caption naming its price
basis, or a 'not available' box saying why. Every string from the data goes through `esc`.
"""

from __future__ import annotations

from datetime import datetime

from gpucost.flows.cli.output import age_text
from gpucost.flows.cli.report.panels import Panel, ReportData
from gpucost.flows.cli.report.svg import (
    bars,
    esc,
    health_chart,
    heatmap_cost,
    history_chart,
    interactivity_chart,
    measured_chart,
    training_chart,
)

CSS = """
body{font-family:sans-serif;margin:24px;color:#222;background:#fafafa;max-width:1180px}
h1{font-size:22px;margin:0 0 4px} h2{font-size:17px;margin:0 0 6px}
h3{font-size:13px;margin:10px 0 2px}
.meta{color:#555;font-size:13px;margin-bottom:18px}
section{background:#fff;border:1px solid #ddd;border-radius:6px;padding:14px 16px;margin:0 0 18px}
.note{color:#555;font-size:12px;margin:6px 0 0}
.pair{display:flex;flex-wrap:wrap;gap:16px}
.na{border:1px dashed #bbb;background:#f4f4f4;color:#555;padding:18px;border-radius:4px;
font-size:13px}
table{border-collapse:collapse;font-size:12px;margin-top:8px}
th,td{border-bottom:1px solid #e4e4e4;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f0f0f0} td.err{max-width:520px;word-break:break-word}
nav a{margin-right:12px;font-size:13px}
.banner{background:#fff4d6;border:1px solid #edc948;padding:8px 12px;margin:8px 0;font-size:14px}
table.prices td.num{text-align:right;font-variant-numeric:tabular-nums}
table.prices tr.undated td{color:#777;background:#f7f7f7}
table.prices tr.undated td.age{font-style:italic}
table.prices tr.stale td{color:#777}
.basis{font-size:12px;color:#333;margin:2px 0 6px;font-weight:bold}
.pair>div{min-width:0}
"""
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; " \
      "form-action 'none'"


def _table(head: list[str], rows: list[list[object]], cls: str = "") -> str:
    """A plain HTML table of escaped cells."""
    th = "".join(f"<th>{esc(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f'<table class="{cls}"><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>'


def _basis_line(chart: str, panel: Panel) -> str:
    """The caption naming the price basis of a chart (empty when the panel has none)."""
    if not panel.basis or panel.missing:
        return ""
    return f'<p class="basis" data-basis-for="{esc(chart)}">{esc(panel.basis)}</p>'


def _price_row(name: str, provider: str, seller: str | None, listing_kind: str | None,
               price: float, sku: str, dated: bool, age: float | None,
               observed_at: datetime | None, source: str, url: str | None,
               stale: bool = False) -> str:
    """One row of the "rent now" table: a dated offer with its age, or an undated one
    marked "date unknown" (class undated, data-dated false); a stale seller's (its newest
    price more than price_max_age_days behind the part's newest: not in the statistics) says
    "stale" beside its age (class stale)."""
    who = provider
    if seller and seller != provider:
        who = f"{provider} (resells {seller})" if listing_kind == "resold" else \
            f"{provider} (seller {seller})"
    if dated:
        when = observed_at.strftime("%Y-%m-%d") if observed_at else ""
        age = esc(age_text(age) if age is not None else when)
        if stale:
            age_cell = (f'<td class="age" title="observed {esc(when)}; far behind the newest '
                        f'price of this part: not in the statistics">{age}, stale</td>')
            head = '<tr class="stale" data-dated="true">'
        else:
            age_cell = f'<td class="age" title="observed {esc(when)}">{age}</td>'
            head = '<tr data-dated="true">'
    else:
        age_cell = ('<td class="age" title="from a file replayed without any date: not a '
                    'current price">date unknown</td>')
        head = '<tr class="undated" data-dated="false">'
    link = f'<td><a href="{esc(url)}">{esc(source)}</a></td>' if url else \
        f"<td>{esc(source)}</td>"
    return (f"{head}<td>{esc(name)}</td><td>{esc(who)}</td>"
            f'<td class="num">{price:.3f}</td><td>{esc(sku)}</td>{age_cell}{link}</tr>')


def _section(anchor: str, title: str, chart: str, body: str, panel: Panel) -> str:
    if panel.missing:
        body = f'<div class="na" data-chart-missing="{esc(chart)}">{esc(panel.missing)}</div>'
    else:
        body = _basis_line(chart, panel) + body
    note = f'<p class="note">{esc(panel.note)}</p>' if panel.note and not panel.missing else ""
    return f'<section id="{anchor}"><h2>{esc(title)}</h2>{body}{note}</section>'


def render(data: ReportData) -> str:
    """The whole page as one string (no external resource of any kind)."""
    cost = heatmap_cost(data.cost) if not data.cost.missing else ""
    mem = bars("memory-per-dollar", "GB of accelerator memory per USD/hour",
               [(a, v, "#4e79a7", f"{a}: {v:.3g} GB per USD/hour at ${p:.3g}/GPU-hour"
                 + (f" ({prov})" if prov else "")) for a, v, p, prov in data.memory.rows],
               "GB") if not data.memory.missing else ""
    bw = bars("bandwidth-per-dollar", "TB/s of memory bandwidth per USD/hour",
              [(a, v, "#f28e2b", f"{a}: {v:.3g} TB/s per USD/hour at ${p:.3g}/GPU-hour"
                + (f" ({prov})" if prov else "")) for a, v, p, prov in data.bandwidth.rows],
              "TB/s") if not data.bandwidth.missing else ""
    per_dollar = (
        '<div class="pair"><div><h3>GB per USD/hour</h3>'
        + (_basis_line("memory-per-dollar", data.memory) + mem
           or f'<div class="na" data-chart-missing="memory-per-dollar">'
           f'{esc(data.memory.missing)}</div>')
        + '</div><div><h3>TB/s per USD/hour</h3>'
        + (_basis_line("bandwidth-per-dollar", data.bandwidth) + bw
           or f'<div class="na" data-chart-missing="bandwidth-per-dollar">'
           f'{esc(data.bandwidth.missing)}</div>')
        + "</div></div>")
    per_dollar_panel = Panel(note=data.memory.note or data.bandwidth.note)
    history = history_chart(data.history) if not data.history.missing else ""
    training = training_chart(data.training) if not data.training.missing else ""
    measured = measured_chart(data.measured) if not data.measured.missing else ""
    interactivity = interactivity_chart(data.interactivity) \
        if not data.interactivity.missing else ""
    health = ""
    if not data.health.missing:
        health = health_chart(data.health) + _table(
            ["source", "kind", "health", "last status", "rows in force", "data age",
             "last success (UTC)", "last error"],
            [[r["source"], r.get("kind"), r["health"], r.get("last_status"),
              r.get("rows_in_force"), age_text(r.get("data_age_days")),
              r["last_success_at"].strftime("%Y-%m-%d %H:%M") if r.get("last_success_at")
              else "",
              (f"{r['last_error_type']}: {r.get('last_error') or ''}"
               if r.get("last_error_type") else "")] for r in data.health.rows], "health")
    unmapped = _table(["source", "provider", "GPU name (as scraped)", "sample sku", "offers"],
                      [list(r) for r in data.unmapped.rows], "unmapped") \
        if data.unmapped.rows else "<p class=\"note\">every GPU name maps to an accelerator</p>"
    counts = ", ".join(f"{esc(k)} {v}" for k, v in sorted(data.mart_rows.items()))
    prices = ""
    if data.prices.rows:
        body = "".join(_price_row(*r) for r in data.prices.rows)
        prices = ('<table class="prices" data-table="prices"><thead><tr><th>accelerator</th>'
                  "<th>provider</th><th>USD / GPU-hour</th><th>sku</th><th>age</th>"
                  f"<th>source</th></tr></thead><tbody>{body}</tbody></table>")
    sections = [
        _section("prices", "What an accelerator costs to rent now (on-demand, per GPU-hour)",
                 "price-table", prices, data.prices),
        _section("cost", "Cost per 10^18 FLOP by accelerator and precision", "cost-per-eflop",
                 cost, data.cost),
        _section("per-dollar", "Memory and bandwidth per dollar", "memory-per-dollar",
                 per_dollar, per_dollar_panel),
        _section("history", "Price history", "price-history", history, data.history),
        _section("training", "Training cost of the seed scenarios across platforms",
                 "training-cost", training, data.training),
        _section("measured", "What a million tokens cost, measured (MLPerf Inference)",
                 "measured-inference", measured, data.measured),
        _section("interactivity", "Cost per million tokens against the speed each user gets",
                 "interactivity", interactivity, data.interactivity),
        _section("health", "Source health and data age", "source-health", health, data.health),
        _section("unmapped", "Unmapped GPU names", "unmapped-gpu-names", unmapped,
                 data.unmapped),
    ]
    nav = "".join(f'<a href="#{a}">{esc(t)}</a>' for a, t in (
        ("prices", "prices now"), ("cost", "cost per FLOP"), ("per-dollar", "per dollar"),
        ("history", "price history"),
        ("training", "training cost"), ("measured", "tokens, measured"),
        ("interactivity", "tokens per user"),
        ("health", "sources"), ("unmapped", "unmapped names")))
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>gpucost report</title>"
        f"<style>{CSS}</style></head><body>"
        "<h1>gpucost: the cost of AI compute</h1>"
        f'<div class="meta">warehouse published {esc(data.published_at.strftime("%Y-%m-%d %H:%M"))}'
        f' UTC; report generated {esc(data.generated_at.strftime("%Y-%m-%d %H:%M"))} UTC. '
        f"Rows: {counts}.</div>"
        + (f'<div class="banner" data-banner="freshness">Data freshness: '
           f"{esc(data.banner)}. `gpucost sources` says more.</div>" if data.banner else "")
        + f"<nav>{nav}</nav><br>"
        + "".join(sections) + "</body></html>\n"
    )

