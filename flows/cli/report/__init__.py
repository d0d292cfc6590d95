"""`gpucost report`: one self-contained HTML dashboard of the published warehouse.

The page works offline and makes no network request: the charts are inline SVG (no
JavaScript, no fonts, no images, no CDN), the styles are inline, and a
Content-Security-Policy meta tag forbids scripts and every external load. Every string that
comes from the data (GPU names, skus, error messages: scraped text) is HTML-escaped.

A price without a date is not a current price: the "rent now" table lists each seller's dated
on-demand offer first, with its age; an offer from a file replayed without any date
(gpu_offers.observed_at_known false) only comes after every dated one, marked "date unknown".

Charts (each an <svg data-chart="...">, each with a caption <p data-basis-for="..."> naming
the price basis it uses; a panel <div data-chart-missing="..."> says why when the data is not
there):

- cost-per-eflop: USD per 10^18 FLOP at the dense peak, accelerator x precision (cost_per_flop,
  price basis on_demand_min when present);
- memory-per-dollar, bandwidth-per-dollar: GB and TB/s per USD/hour (memory_per_dollar,
  bandwidth_per_dollar, same basis);
- price-history: for the accelerator with the most dated history, one step line per seller
  (gpu_offers.seller of the provider's own listings): its cheapest first-hand on-demand USD
  per GPU-hour per day (price_history, which holds dated observations only), with the daily
  on-demand price index over offers of any size (price_index, docs/price-index.md) as a black
  line and its interquartile range as a grey band, on the days it is published;
- training-cost: the training_cost mart's scenarios across accelerators that can train the
  model, priced at offers of a whole node; a platform priced by an undated offer comes
  after the dated ones, marked '(undated)';
- measured-inference: MLPerf results priced at the on-demand basis (inference_measured,
  price_basis on_demand_min; else the owned cost, else the analyst's rental survey, marked);
- source-health: data age per source, coloured by health (source_health).

The marts are read by their documented columns (docs/tables.md); a mart missing from the
warehouse (one built before it existed) gives a 'not available' panel, never a crash. The
freshness banner names the failing sources (their last fetch failed) and says apart how many
have data older than a week: old data is not a failure. Labels are measured (Helvetica/Arial
metrics with a margin for wider fonts) so that names are never clipped: the label column
widens to the longest name.

The code: panels.py queries the marts (one function per panel, `collect`), svg.py draws the
charts, page.py writes the HTML; this module is the command.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from gpucost.flows.cli.output import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from gpucost.flows.cli.report.page import render
from gpucost.flows.cli.report.panels import collect
from gpucost.flows.cli.terminal import one_line, safe


def write_report(data_dir: Path, out: Path) -> Path:
    """Render the published warehouse of `data_dir` into `out` (written atomically)."""
    from gpucost.warehouse.publish import connect_readonly, serving_path

    con = connect_readonly(data_dir)  # NoWarehouseError when nothing is published yet
    published_at = datetime.fromtimestamp(serving_path(data_dir).stat().st_mtime, UTC)
    try:
        html = render(collect(con, published_at))
    finally:
        con.close()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=".tmp-report-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(html)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; a report is for sharing
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return out


def cmd_report(args: argparse.Namespace) -> int:
    from gpucost.warehouse import data_dir
    from gpucost.warehouse.publish import NoWarehouseError

    out = Path(args.output) if args.output else data_dir() / "report.html"
    problem = _unwritable(out)
    if problem:
        print(f"error: -o {safe(out)}: {problem}", file=sys.stderr)
        return EXIT_USAGE
    try:
        path = write_report(data_dir(), out)
    except NoWarehouseError as exc:
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return EXIT_FAILED
    except OSError as exc:  # the folder is read-only, the disk full...
        print(f"error: -o {safe(out)}: cannot write the report there: "
              f"{one_line(exc.strerror or exc)}", file=sys.stderr)
        return EXIT_USAGE
    print(f"wrote {safe(path)}")
    return EXIT_OK


def _unwritable(out: Path) -> str:
    """Why the report cannot be written at `out` ("" when it looks writable): a directory,
    anything else that is not a regular file (`-o /dev/null` replaced the device with the
    report), a parent that is a file, a folder without write permission."""
    if out.is_dir() or str(out).endswith(os.sep):
        return "a directory; give the file to write, e.g. report.html"
    if out.exists() and not out.is_file():  # a device, a FIFO, a socket (or a link to one)
        import stat

        mode = out.stat().st_mode
        kind = ("a character device" if stat.S_ISCHR(mode) else
                "a block device" if stat.S_ISBLK(mode) else
                "a FIFO" if stat.S_ISFIFO(mode) else
                "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
        return (f"{kind}; the report is written only as a regular file (it would replace "
                "it), give a file name, e.g. report.html")
    parent = out.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        return f"{safe(parent)} is not a directory"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"cannot write in {safe(parent)} (permission denied)"
    return ""


def add_parser(sub: argparse._SubParsersAction) -> None:
    r = sub.add_parser("report", help="write the self-contained HTML dashboard",
                       description=__doc__)
    r.add_argument("-o", "--output", help="where to write it (default "
                   "<data dir>/report.html, i.e. warehouse/data/report.html)")
    r.set_defaults(func=cmd_report)
