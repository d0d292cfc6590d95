"""The report's charts: inline SVG drawn here (no JavaScript, no fonts, no images).

`Svg` holds the primitives (rect, text, line, path, circle); `bars`, `heatmap_cost`,
`history_chart`, `training_chart`, `measured_chart`, `interactivity_chart` and `health_chart`
draw a panel's rows (panels.py) as one <svg data-chart="...">. Labels are measured
(Helvetica/Arial metrics with a margin for wider fonts) so that names are never clipped: the
label column widens to the longest name. Every string drawn goes through `esc`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from datetime import date
from html import escape

from gpucost.flows.cli.output import age_text
from gpucost.flows.cli.report.panels import MAX_ROWS, Panel
from gpucost.flows.cli.terminal import safe_lines

PRECISIONS = ("fp64", "fp64_matrix", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4")
MEASURED_COLOURS = {"on_demand_min": "#4e79a7", "owned": "#9c9c9c",
                    "rental_3y_survey": "#c7b07a"}
PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
           "#ff9da7", "#9c755f", "#bab0ac")
HEALTH_COLOURS = {"ok": "#59a14f", "curated": "#9c9c9c", "stale": "#edc948",
                  "replayed": "#76b7b2", "failing": "#e15759", "never fetched": "#bab0ac"}


def esc(value: object) -> str:
    """HTML-escaped text, with every control and bidi character (U+202E reverses what follows
    it on the page) shown as its escape, `\\u202e`: safe_lines (flows/cli/terminal.py)."""
    return escape(safe_lines(value), quote=True)


def fmt(value: float | None, unit: str = "") -> str:
    """A figure as the charts print it: 3 significant digits, thousands separated, M above
    a million, `unit` after it (a "$" before it); "" when missing or not finite."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    v = float(value)
    if v == 0:
        text = "0"
    elif abs(v) >= 1e6:
        text = f"{v / 1e6:,.3g}M"
    elif abs(v) >= 100:
        text = f"{v:,.0f}"
    else:
        text = f"{v:#.3g}"
    return f"{unit}{text}" if unit == "$" else f"{text}{(' ' + unit) if unit else ''}"


# advance widths of Helvetica / Arial / Liberation Sans in em (what Chromium draws
# 'sans-serif' with here); others 0.6 em. WIDTH_MARGIN covers wider fonts (DejaVu Sans).
_WIDE = {**dict.fromkeys("ijlI.,:;'|!", 0.28), **dict.fromkeys("ft/ []", 0.28),
         **dict.fromkeys("r()-\"", 0.34), **dict.fromkeys("ckvxyzsJ", 0.5),
         **dict.fromkeys("mM", 0.84), "w": 0.73, "W": 0.95, "@": 1.02, "%": 0.89,
         **dict.fromkeys("CDHNRUw", 0.73), **dict.fromkeys("GOQ", 0.78),
         **dict.fromkeys("FTZ", 0.62), **dict.fromkeys("ABEKPSVXY&", 0.67),
         **dict.fromkeys("abdeghnopqu0123456789$_L", 0.56)}
WIDTH_MARGIN = 1.15


def text_width(text: object, size: float = 11) -> float:
    """Rendered width in px of `text` at font size `size`, on the generous side."""
    return sum(_WIDE.get(c, 0.6) for c in str(text)) * size * WIDTH_MARGIN + 2


def label_room(labels: Iterable[object], size: float = 11) -> int:
    """Room in px for a column of right-aligned labels (the longest one, a gap beside)."""
    return math.ceil(max((text_width(t, size) for t in labels), default=0)) + 10


class Svg:
    """One chart: its primitives, rendered as <svg data-chart="..." role="img">."""

    def __init__(self, width: int, height: int, chart: str, label: str):
        self.width, self.height, self.chart, self.label = width, height, chart, label
        self.parts: list[str] = []

    def rect(self, x: float, y: float, w: float, h: float, fill: str, title: str = "",
             cls: str = "") -> None:
        t = f"<title>{esc(title)}</title>" if title else ""
        c = f' class="{cls}"' if cls else ""
        self.parts.append(f'<rect{c} x="{x:.1f}" y="{y:.1f}" width="{max(w, 0):.1f}" '
                          f'height="{max(h, 0):.1f}" fill="{fill}">{t}</rect>')

    def text(self, x: float, y: float, s: object, anchor: str = "start", size: int = 11,
             fill: str = "#333", weight: str = "normal") -> None:
        self.parts.append(f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" '
                          f'font-size="{size}" fill="{fill}" font-weight="{weight}">'
                          f"{esc(s)}</text>")

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: str = "#ccc",
             width: float = 1) -> None:
        self.parts.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                          f'stroke="{stroke}" stroke-width="{width}"/>')

    def path(self, points: list[tuple[float, float]], stroke: str, title: str = "",
             cls: str = "series", dash: bool = False, width: float = 2) -> None:
        d = " ".join(f"{'M' if i == 0 else 'L'}{x:.1f},{y:.1f}" for i, (x, y) in
                     enumerate(points))
        t = f"<title>{esc(title)}</title>" if title else ""
        dashes = ' stroke-dasharray="4 3" stroke-opacity="0.7"' if dash else ""
        self.parts.append(f'<path class="{cls}" d="{d}" fill="none" stroke="{stroke}" '
                          f'stroke-width="{width:g}"{dashes}>{t}</path>')

    def band(self, upper: list[tuple[float, float]], lower: list[tuple[float, float]],
             fill: str, title: str = "", cls: str = "band") -> None:
        """A filled area between two lines drawn left to right (`lower` also left to right)."""
        pts = upper + lower[::-1]
        d = " ".join(f"{'M' if i == 0 else 'L'}{x:.1f},{y:.1f}" for i, (x, y) in
                     enumerate(pts)) + " Z"
        t = f"<title>{esc(title)}</title>" if title else ""
        self.parts.append(f'<path class="{cls}" d="{d}" fill="{fill}" fill-opacity="0.5" '
                          f'stroke="none">{t}</path>')

    def circle(self, x: float, y: float, r: float, fill: str, title: str = "") -> None:
        t = f"<title>{esc(title)}</title>" if title else ""
        self.parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{fill}">{t}'
                          "</circle>")

    def render(self) -> str:
        return (f'<svg data-chart="{esc(self.chart)}" '
                f'role="img" aria-label="{esc(self.label)}" width="{self.width}" '
                f'height="{self.height}" viewBox="0 0 {self.width} {self.height}" '
                f'font-family="sans-serif">' + "".join(self.parts) + "</svg>")


def _log_scale(lo: float, hi: float, x0: float, x1: float):  # type: ignore[no-untyped-def]
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    if a == b:
        b += 1

    def scale(v: float) -> float:
        return x0 + (math.log10(v) - a) / (b - a) * (x1 - x0)

    return scale, [10.0 ** e for e in range(a, b + 1)]


def _tick(v: float, unit: str = "") -> str:
    a = abs(v)
    if a >= 1e9:
        text = f"{v / 1e9:g}B"
    elif a >= 1e6:
        text = f"{v / 1e6:g}M"
    elif a >= 1e4:
        text = f"{v / 1e3:g}k"
    else:
        text = f"{v:,.0f}" if a >= 1000 else f"{v:g}"
    return f"{unit}{text}" if unit == "$" else text


def _nice_ticks(hi: float, n: int = 4) -> list[float]:
    """0, step, 2 step, ... covering hi, with step 1, 2, 2.5 or 5 x 10^k."""
    if hi <= 0:
        return [0.0, 1.0]
    raw = hi / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    return [k * step for k in range(math.ceil(hi / step - 1e-9) + 1)]


def _lerp_colour(t: float) -> str:
    """Sequential palette (cheap = green/teal, expensive = dark purple), t in [0, 1]."""
    stops = [(0.0, (0x1a, 0x98, 0x50)), (0.35, (0x91, 0xcf, 0x60)), (0.6, (0xfe, 0xe0, 0x8b)),
             (0.8, (0xf4, 0x6d, 0x43)), (1.0, (0x7b, 0x32, 0x94))]
    t = min(1.0, max(0.0, t))
    for (t0, c0), (t1, c1) in zip(stops, stops[1:], strict=False):
        if t <= t1:
            f = (t - t0) / (t1 - t0) if t1 > t0 else 0
            rgb = [round(c0[i] + (c1[i] - c0[i]) * f) for i in range(3)]
            return "#" + "".join(f"{c:02x}" for c in rgb)
    return "#7b3294"


def heatmap_cost(panel: Panel) -> str:
    values: dict[str, dict[str, tuple[float, str | None]]] = {}
    for acc, prec, usd, provider in panel.rows:
        values.setdefault(acc, {})[prec] = (usd, provider)
    precisions = [p for p in PRECISIONS if any(p in v for v in values.values())]

    def order(acc: str) -> tuple[float, str]:
        v = values[acc]
        key = v.get("bf16") or v.get("fp16") or v.get("fp32") or min(v.values())
        return (key[0], acc)

    accs = sorted(values, key=order)[:MAX_ROWS * 2]
    all_v = [u for v in values.values() for u, _ in v.values()]
    lo, hi = math.log10(min(all_v)), math.log10(max(all_v))
    dearer = f"dearer (log scale, {fmt(10 ** lo, '$')} to {fmt(10 ** hi, '$')})"
    cell_w, cell_h, top = 74, 20, 30
    left = max(80, math.ceil(max(text_width(a) for a in accs)) + 12)
    width = max(left + cell_w * len(precisions), left + 20 * 12 + 6 + text_width(dearer, 10))
    svg = Svg(math.ceil(width) + 10, top + cell_h * len(accs) + 44,
              "cost-per-eflop", "USD per 10^18 FLOP by accelerator and precision")
    ly = top + cell_h * len(accs) + 16  # legend: the colour scale, cheap to dear (log)
    svg.text(left - 6, ly + 11, "cheaper", "end", 10, "#666")
    for k in range(20):
        svg.rect(left + k * 12, ly, 12, 14, _lerp_colour(k / 19))
    svg.text(left + 20 * 12 + 6, ly + 11, dearer, "start", 10, "#666")
    for j, prec in enumerate(precisions):
        svg.text(left + j * cell_w + cell_w / 2, top - 10, prec, "middle", 11, weight="bold")
    for i, acc in enumerate(accs):
        y = top + i * cell_h
        svg.text(left - 6, y + cell_h / 2 + 4, acc, "end", 11)
        for j, prec in enumerate(precisions):
            if prec not in values[acc]:
                continue
            usd, provider = values[acc][prec]
            t = (math.log10(usd) - lo) / (hi - lo) if hi > lo else 0.5
            colour = _lerp_colour(t)
            svg.rect(left + j * cell_w + 1, y + 1, cell_w - 2, cell_h - 2, colour,
                     f"{acc} {prec}: ${usd:.4g} per 10^18 FLOP"
                     + (f" ({provider})" if provider else ""), "cell")
            dark = t > 0.75 or t < 0.15
            svg.text(left + j * cell_w + cell_w / 2, y + cell_h / 2 + 4, fmt(usd, "$"),
                     "middle", 10, "#fff" if dark else "#222")
    return svg.render()


def bars(chart: str, label: str, rows: list[tuple[str, float, str, str]], unit: str,
         log: bool = False, plot: int = 300,
         value_text: Callable[[float], str] | None = None,
         texts: list[str] | None = None, left: int = 0) -> str:
    """Horizontal bars: rows of (label, value, colour, tooltip); each bar is labelled with
    `texts[i]` when given, else `value_text(value)` (default: the value in `unit`). The
    label column is as wide as the longest label and the right margin as the longest bar
    label (at least `left`, to align charts drawn one under another), so that no name is
    clipped; `plot` is the width of the bars' area."""
    bar_h, top = 16, 10
    labels = [texts[i] if texts else (value_text(v) if value_text else fmt(v, unit))
              if v and v > 0 else "no data" for i, (_, v, _, _) in enumerate(rows)]
    left = max(60, left, label_room(n for n, _, _, _ in rows))
    right = max(40, math.ceil(max((text_width(t, 10) for t in labels), default=0)) + 10)
    width = left + plot + right
    svg = Svg(width, top + len(rows) * (bar_h + 4) + 26, chart, label)
    x0, x1 = left, left + plot
    vals = [v for _, v, _, _ in rows if v and v > 0]
    if log and vals:
        scale, ticks = _log_scale(min(vals), max(vals), x0, x1)
        for tv in ticks:
            svg.line(scale(tv), top - 4, scale(tv), svg.height - 20)
            svg.text(scale(tv), svg.height - 6, _tick(tv), "middle", 10, "#666")
        base = x0
    else:
        ticks = _nice_ticks(max(vals) if vals else 1.0)
        hi = ticks[-1]

        def scale(v: float) -> float:
            return x0 + v / hi * (x1 - x0)

        base = x0
        for tv in ticks:
            svg.line(scale(tv), top - 4, scale(tv), svg.height - 20)
            svg.text(scale(tv), svg.height - 6, _tick(tv), "middle", 10, "#666")
    for i, (name, value, colour, tip) in enumerate(rows):
        y = top + i * (bar_h + 4)
        svg.text(left - 6, y + bar_h - 4, name, "end", 11)
        if value and value > 0:
            end = scale(value)
            svg.rect(base, y, max(end - base, 1.5), bar_h, colour, tip, "bar")
            svg.text(end + 4, y + bar_h - 4, labels[i], "start", 10, "#333")
        else:
            svg.text(base + 4, y + bar_h - 4, labels[i], "start", 10, "#999")
    return svg.render()


def history_chart(panel: Panel) -> str:
    """One step line per seller from the price_history mart (a price holds until the next
    observation; a dot where it changes; a dashed tail carries the last price forward to the
    newest day of the chart), and the daily price index (panel.index, from price_index: a
    black step line over them, its interquartile range a grey band under them) where
    published."""
    series: dict[str, list[tuple[date, float]]] = {}
    for name, day, price in panel.rows:
        series.setdefault(str(name), []).append((day, float(price)))
    index = [(d, float(v), float(lo), float(hi), n) for d, v, lo, hi, n in panel.index]
    days = sorted({d for pts in series.values() for d, _ in pts} | {r[0] for r in index})
    prices = [p for pts in series.values() for _, p in pts] + [r[3] for r in index]
    legend = [*series, *(["price index (median)", "interquartile range"] if index else [])]
    legend_w = max(text_width(n) for n in legend)
    width, height, left, top, bottom = 1000, 320, 60, 14, 40
    right = max(120, math.ceil(legend_w) + 48)
    svg = Svg(width, height, "price-history",
              "cheapest dated on-demand USD per GPU-hour over time, per seller")
    x0, x1, y0, y1 = left, width - right, height - bottom, top
    d0, d1 = days[0].toordinal(), days[-1].toordinal()
    yticks = _nice_ticks(max(prices))
    hi = yticks[-1]

    def sx(d: date) -> float:
        return (x0 + x1) / 2 if d1 == d0 else x0 + (d.toordinal() - d0) / (d1 - d0) * (x1 - x0)

    def sy(p: float) -> float:
        return y0 - p / hi * (y0 - y1)

    for v in yticks:
        svg.line(x0, sy(v), x1, sy(v))
        svg.text(x0 - 6, sy(v) + 4, _tick(v, "$"), "end", 10, "#666")
    if d1 == d0:
        ticks = [days[0]]
    else:
        n = min(6, d1 - d0)
        ticks = [date.fromordinal(round(d0 + i * (d1 - d0) / n)) for i in range(n + 1)]
    for d in ticks:
        svg.line(sx(d), y0, sx(d), y0 + 4, "#999")
        svg.text(sx(d), y0 + 18, d.isoformat(), "middle", 10, "#666")
    # the index under the sellers' lines: one run of consecutive published days at a time
    runs: list[list[tuple]] = []
    index_lines: list[tuple[list, str]] = []  # drawn over the sellers' lines
    for row in index:
        if runs and row[0].toordinal() - runs[-1][-1][0].toordinal() == 1:
            runs[-1].append(row)
        else:
            runs.append([row])
    for run in runs:
        # a day's value holds over the day: steps from the day to the next
        edges = [(sx(d), sx(date.fromordinal(min(d.toordinal() + 1, d1)))) for d, *_ in run]

        def steps(col: int, run: list[tuple] = run, edges: list = edges) -> list:
            return [pt for (xa, xb), r in zip(edges, run, strict=True)
                    for pt in ((xa, sy(r[col])), (max(xb, xa + 1), sy(r[col])))]

        first, last = run[0], run[-1]
        svg.band(steps(3), steps(2), "#bbbbbb",
                 f"interquartile range of the sellers' prices, {first[0].isoformat()} to "
                 f"{last[0].isoformat()}: ${last[2]:.3f} to ${last[3]:.3f} on the last day")
        index_lines.append((steps(1),
                            f"price index {first[0].isoformat()} to {last[0].isoformat()}: "
                            f"${last[1]:.3f}/GPU-hour on {last[0].isoformat()} "
                            f"({last[4]} sellers)"))
    for k, (name, pts) in enumerate(sorted(series.items())):
        colour = PALETTE[k % len(PALETTE)]
        pts.sort()
        xy = [(sx(d), sy(p)) for d, p in pts]
        stepped = [xy[0]]  # a step line: a price holds until the next observation
        for x, y in xy[1:]:
            stepped += [(x, stepped[-1][1]), (x, y)]
        if len(stepped) == 1:  # one observation: a short tick, so the line is seen
            stepped.append((stepped[0][0] + 2, stepped[0][1]))
        svg.path(stepped, colour, name)
        if pts[-1][0] < days[-1]:  # the last price carried forward (dashed)
            svg.path([xy[-1], (sx(days[-1]), xy[-1][1])], colour,
                     f"{name}: last observed {pts[-1][0].isoformat()} at "
                     f"${pts[-1][1]:.3f}, carried forward", "carry", dash=True)
        # a dot where the seller's price is first seen and wherever it changes
        marks = [i for i in range(len(pts)) if i == 0 or pts[i][1] != pts[i - 1][1]]
        for i in marks:
            (d, p), (x, y) = pts[i], xy[i]
            svg.circle(x, y, 3.5, colour, f"{name} {d.isoformat()}: ${p:.3f}/GPU-hour")
        ly = top + 10 + k * 18
        svg.rect(x1 + 16, ly - 9, 12, 12, colour)
        svg.text(x1 + 32, ly + 1, name, "start", 11)
    for points, title in index_lines:
        svg.path(points, "#111111", title, "index", width=3)
    if index:
        for k, (name, colour) in enumerate((("price index (median)", "#111111"),
                                            ("interquartile range", "#bbbbbb")),
                                           start=len(series)):
            ly = top + 10 + k * 18
            svg.rect(x1 + 16, ly - 9, 12, 12, colour)
            svg.text(x1 + 32, ly + 1, name, "start", 11)
    return svg.render()


def training_chart(panel: Panel) -> str:
    by_scenario: dict[str, list[tuple[str, float]]] = {}
    for scenario, platform, cost in panel.rows:
        by_scenario.setdefault(str(scenario), []).append((str(platform), float(cost)))
    out = []
    left = label_room(p for rows in by_scenario.values() for p, _ in rows)
    for k, (scenario, rows) in enumerate(sorted(by_scenario.items())):
        colour = PALETTE[k % len(PALETTE)]
        out.append(f'<h3>{esc(scenario)}</h3>' + bars(
            "training-cost", f"training cost of {scenario} by platform",
            [(p, c, colour, f"{scenario} on {p}: ${c:,.0f}") for p, c in rows], "$", log=True,
            left=left))
    return "".join(out)


MEASURED_SHORT = {"on_demand_min": "on-demand", "owned": "owned cost",
                  "rental_3y_survey": "3-year rental survey"}


def measured_chart(panel: Panel) -> str:
    by_benchmark: dict[str, list[tuple[str, float, str, str]]] = {}
    texts: dict[str, list[str]] = {}
    for (bench, acc, usd, rnd, submitter, software, basis, provider, _kind,
         tps) in panel.rows:
        tip = (f"{acc} on {bench}: {usd:.3g} USD per million output tokens at {basis}"
               + (f" ({provider})" if provider else "")
               + f"; {tps:,.0f} tokens/s per GPU, "
               f"MLPerf {rnd} {submitter}, {software or 'software not named'}")
        colour = MEASURED_COLOURS.get(basis, "#9c9c9c")
        by_benchmark.setdefault(str(bench), []).append((str(acc), float(usd), colour, tip))
        texts.setdefault(str(bench), []).append(
            f"${usd:.3g} ({MEASURED_SHORT.get(basis, basis)})")
    left = label_room(r[0] for rows in by_benchmark.values() for r in rows)
    return "".join(
        f"<h3>{esc(bench)}</h3>" + bars(
            "measured-inference", f"measured USD per million output tokens, {bench}", rows,
            "$", log=True, plot=420, texts=texts[bench], left=left)
        for bench, rows in sorted(by_benchmark.items()))


def interactivity_chart(panel: Panel) -> str:
    """Per model, a log-log chart: x tokens/s per user, y USD per million output tokens, one
    colour per accelerator, a line per system (curve)."""
    by_model: dict[str, list[tuple]] = {}
    for row in panel.rows:
        by_model.setdefault(str(row[0]), []).append(row)
    out = []
    for model, rows in sorted(by_model.items()):
        accs = sorted({str(r[2]) for r in rows})
        colour = {a: PALETTE[k % len(PALETTE)] for k, a in enumerate(accs)}
        width, height, left, top, bottom = 900, 300, 64, 14, 40
        right = max(140, math.ceil(max(text_width(a) for a in accs)) + 48)
        svg = Svg(width, height, "interactivity",
                  f"USD per million output tokens against tokens/s per user, {model}")
        x0, x1, y0, y1 = left, width - right, height - bottom, top
        xs = [float(r[5]) for r in rows]
        ys = [float(r[8]) for r in rows]
        sx, xticks = _log_scale(min(xs), max(xs), x0, x1)
        sy_up, yticks = _log_scale(min(ys), max(ys), 0, y0 - y1)

        def sy(v: float, up=sy_up, base=y0) -> float:
            return base - up(v)

        for v in xticks:
            svg.line(sx(v), y0, sx(v), y1)
            svg.text(sx(v), y0 + 16, _tick(v), "middle", 10, "#666")
        for v in yticks:
            svg.line(x0, sy(v), x1, sy(v))
            svg.text(x0 - 6, sy(v) + 4, f"${v:g}", "end", 10, "#666")
        svg.text((x0 + x1) / 2, height - 6, "tokens/s per user", "middle", 10, "#666")
        svg.text(x0 + 4, y1 + 12, "USD per million output tokens", "start", 10, "#666")
        curves: dict[str, list[tuple]] = {}
        for r in rows:
            curves.setdefault(str(r[1]), []).append(r)
        for curve, pts in curves.items():
            c = colour[str(pts[0][2])]
            xy = [(sx(float(p[5])), sy(float(p[8]))) for p in pts]
            line = [q for q, p in zip(xy, pts, strict=True) if p[11]]
            if len(line) > 1:
                svg.path(line, c, curve)
            for (x, y), p in zip(xy, pts, strict=True):
                dot = c if p[11] else "#bbbbbb"
                svg.circle(x, y, 3.5 if p[6] != "tpot_bound" else 2.5,
                           dot if p[6] != "tpot_bound" else "#ffffff",
                           f"{p[2]} ({p[3]}, {p[4]}): {float(p[5]):.3g} tokens/s per user"
                           + (" (TPOT limit's floor)" if p[6] == "tpot_bound" else "")
                           + f", {float(p[7]):,.0f} tokens/s per GPU, "
                           f"${float(p[8]):.3g} per million at ${float(p[10]):.3g}/GPU-hour "
                           f"on-demand ({p[9]}); {curve}"
                           + ("" if p[11] else "; off the frontier: another point of this "
                              "system beats it on both axes"))
                if p[6] == "tpot_bound":
                    svg.parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="none" '
                                     f'stroke="{c}" stroke-width="1.5"/>')
        for k, a in enumerate(accs):
            ly = top + 10 + k * 18
            svg.rect(x1 + 16, ly - 9, 12, 12, colour[a])
            svg.text(x1 + 32, ly + 1, a, "start", 11)
        out.append(f"<h3>{esc(model)}</h3>" + svg.render())
    return "".join(out)


def health_chart(panel: Panel) -> str:
    rows = []
    for r in panel.rows:
        age = r.get("data_age_days")
        rows.append((f"{r['source']} ({r['health']})", age if age and age > 0 else None,
                     HEALTH_COLOURS.get(r["health"], "#999"),
                     f"{r['source']}: {r['health']}, data age {age_text(age)}"))
    return bars("source-health", "data age per source (days)", rows, "d", log=True,
                plot=360, value_text=age_text)

