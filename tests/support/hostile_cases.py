"""The hostile-input cases of issue "Hostile input" beyond the fault matrix, each with the test
that asserts it (docs/reliability.md lists them with their outcome; tests/system/
test_hostile_cases_doc.py checks every node id exists), and the peak-memory measurement of a
refresh facing a gzip-bomb robots.txt.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PEAK_RSS_LIMIT_MB = 1024


@dataclass(frozen=True)
class Case:
    item: int  # the numbered failure of the issue
    case: str  # what was tried
    now: str  # the behaviour now
    test: str  # pytest node id (relative to the repository root)


_L = "tests/system/test_hostile_loads.py::"
_S = "tests/system/test_hostile_sources.py::"
_H = "tests/catalog/test_http_hostile.py::"
_Q = "tests/flows/test_cli_sql.py::"
_LIVE = "tests/catalog/test_source_live.py::"

CASES: list[Case] = [
    Case(1, "a future date in a file name (`lambda_vms_2031-01-01.csv`)",
         "refused (ObservationDateError), never holds the stream; later data is in force",
         _L + "test_a_future_date_in_a_file_name_is_refused_and_never_holds_the_stream"),
    Case(1, "`--observed-at` 2031-01-01, 9999-12-31, 0001-01-01 (crashed), 2009-12-31",
         "usage error in one line, exit 2",
         _L + "test_an_implausible_observed_at_option_is_a_usage_error"),
    Case(1, "a truncated replay as the newest payload of its stream (Epoch 1,324 -> 704)",
         "refused by the row-count guard; `ingest --force` loads it",
         _L + "test_a_truncated_replay_is_refused_unless_forced"),
    Case(2, "raw.duckdb deleted while a warehouse is published (7,744 offers -> 53)",
         "publish refused (ShrinkRefusedError), exports untouched; `--allow-shrink` publishes",
         _L + "test_losing_raw_duckdb_never_publishes_an_empty_warehouse"),
    Case(2, "a zero-byte or corrupt raw.duckdb",
         "one line with the way out (RawStoreUnreadableError), exit 1, nothing touched",
         _L + "test_an_unreadable_raw_duckdb_is_one_line_with_the_way_out"),
    Case(3, "Vast nested brackets, a 400-digit price, a corrupt gpuhunt zip, Azure nesting",
         "that file's named failure (UnexpectedPayloadError); the others load and publish",
         _S + "test_a_hostile_payload_is_a_named_failure_of_its_file"),
    Case(3, "a hostile live source beside a good one",
         "the hostile source fails alone; the good one is live; published",
         _S + "test_a_hostile_live_source_fails_alone"),
    Case(4, "a body dribbled one byte every 50 ms",
         "cut at the fetch deadline (DeadlineExceededError)",
         _H + "test_a_dribbling_body_is_cut_at_the_deadline"),
    Case(4, "a dribbling robots.txt", "cut at the same deadline",
         _H + "test_a_dribbling_robots_txt_is_cut_at_the_deadline"),
    Case(4, "GPUCOST_FETCH_DEADLINE_S bounds a source's whole fetch",
         "the source fails within the deadline",
         _H + "test_the_deadline_is_a_source_setting"),
    Case(5, "a x6 price 8 months after the previous observation (was: only 90 days back)",
         "price_jump reject", _L + "test_a_jump_after_a_long_silence_is_still_a_jump"),
    Case(5, "Infinity and 1e308 for an unmapped GPU (were published)",
         "price_not_finite / price_out_of_band (generic band) rejects",
         _L + "test_an_infinite_or_huge_price_is_never_published"),
    Case(5, "every row out of band, `refresh --strict` (was: live, loaded 0, exit 0)",
         "failed (AllRowsRefusedError), exit 3, rejects kept",
         _L + "test_a_payload_whose_every_row_is_refused_is_a_failed_source"),
    Case(5, "Azure prices x100 through `ingest` (was a TypeError)",
         "failed (AllRowsRefusedError), still published",
         _L + "test_every_row_out_of_band_fails_the_payload"),
    Case(5, "`$1e308` on the Lambda page (read as $1)", "no price read: a named reject",
         "tests/catalog/test_source_lambda.py::test_a_price_in_exponent_form_is_not_read_as_"
         "its_first_digit"),
    Case(6, "`sql --format json` of NaN and Infinity", "valid JSON (null)",
         _Q + "test_json_is_strict_nan_and_infinity_are_null"),
    Case(7, "user:password in GPUCOST_SOURCE_URL_*",
         "masked in the summary, raw.fetches, source_health, exports, report, `sources`",
         _S + "test_credentials_in_a_source_url_never_leave_the_process"),
    Case(8, "a redirect to another host", "not followed (OffHostLinkError)",
         _H + "test_a_redirect_to_another_host_is_not_followed"),
    Case(8, "an Azure NextPageLink to another host", "not followed (OffHostLinkError)",
         _LIVE + "test_azure_next_page_link_to_another_host_is_not_followed"),
    Case(8, "a NextPageLink that changes on every page, items repeating",
         "the walk is refused (PagingLoopError) at page 2",
         _LIVE + "test_azure_a_page_repeating_items_refuses_the_walk"),
    Case(8, "a NextPageLink seen twice; more pages than the cap",
         "the walk is refused (PagingLoopError)",
         _LIVE + "test_azure_page_cap_refuses_the_walk"),
    Case(9, "a gzip bomb body", "refused at the size cap, counted after decoding",
         _H + "test_a_gzip_bomb_stops_at_the_size_cap_after_decoding"),
    Case(9, "a gzip-bomb robots.txt (4 MB, 4 GiB of zeros; took 8.6 GB)",
         f"counts as absent; a whole refresh facing it peaks under {PEAK_RSS_LIMIT_MB} MB",
         _S + "test_a_gzip_bomb_robots_txt_keeps_a_refresh_under_1_gb"),
    Case(9, "a zip member expanding past its cap (OCI: 1 MB zip, 2.2 GB)",
         "refused (PayloadTooLargeError)",
         _L + "test_a_zip_member_expanding_past_its_cap_is_refused"),
    Case(9, "`ingest` of a file above its cap (a 200 MB CSV took 8 GB)",
         "refused without reading it (PayloadTooLargeError)",
         _L + "test_ingest_refuses_a_file_over_its_cap_without_reading_it"),
    Case(10, "a recursive CTE that never ends", "interrupted at the time limit (30 s default)",
         _Q + "test_a_runaway_query_is_stopped_by_the_time_limit"),
    Case(10, "`range(10000000)` in a text format", "cut at the row limit, and says so",
         _Q + "test_the_table_format_is_cut_at_max_rows_and_says_so"),
    Case(10, "`sql \"\"`, `\";\"`, a comment only", "usage error, exit 2",
         _Q + "test_an_empty_query_is_a_usage_error"),
    Case(11, "an AWS history row with an extra field", "a malformed_row reject",
         _L + "test_an_aws_history_row_with_an_extra_field_is_a_reject_not_a_crash"),
    Case(11, "disk full during `ingest` (hidden behind \"cannot rollback\")",
         "the real error in one line, exit 1; earlier loads intact",
         _L + "test_disk_full_during_ingest_names_the_real_error_and_keeps_what_was_loaded"),
    Case(11, "a read-only data directory (OSError 30 on the writer lock)", "one line, exit 1",
         _L + "test_a_read_only_data_directory_is_one_line"),
    Case(11, "`sql` (and tables, sources) on a corrupted published file",
         "one line, exit 1; the next refresh rebuilds it",
         _L + "test_a_corrupted_published_file_is_one_line_and_a_refresh_rebuilds_it"),
    Case(11, "a directory passed to `ingest`", "says it is a directory, exit 2",
         _S + "test_a_directory_given_to_ingest_says_so"),
    Case(11, "ROCm / MLPerf document ingested under another name",
         "counted once (ROCm stream from content; MLPerf system id = file name)",
         _L + "test_the_same_document_under_another_name_is_counted_once"),
    Case(11, "CSV-formula names (`=cmd|...`) in CSV exports", "quoted with a leading '",
         "tests/warehouse/test_exports.py::test_csv_cells_that_start_like_a_formula_are_quoted"),
]


BOMB_REFRESH = textwrap.dedent("""
    import json, resource, sys, tempfile, zlib
    from pathlib import Path
    sys.path.insert(0, {support!r})
    import loopback
    co = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"\\0" * (1 << 20)
    member = b"".join(co.compress(block) for _ in range(64)) + co.flush()
    bomb = member * 64  # 64 gzip members of 64 MiB each: 4 GiB of zeros in 4 MB
    page = Path({page!r}).read_bytes()
    def route(method, path, body, headers):
        if path == "/robots.txt":
            return 200, {{"Content-Encoding": "gzip", "Content-Type": "text/plain"}}, bomb
        return 200, {{"Content-Type": "text/html"}}, page
    import os
    from gpucost.catalog import http
    http.PACING = 0.0
    from gpucost.flows.steps import refresh_plain
    with loopback.serve(route) as base, tempfile.TemporaryDirectory() as tmp:
        os.environ["GPUCOST_SOURCE_URL_LAMBDA"] = base + "/pricing"
        summary = refresh_plain(["lambda"], data_dir=Path(tmp))
        status = {{s.source: s.status for s in summary.sources}}["lambda"]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({{"bomb_bytes": len(bomb), "status": status, "published": summary.published,
                      "peak_rss_mb": round(peak, 1)}}))
""")


def measure_bomb_refresh() -> dict[str, object]:
    """A whole refresh (lambda, html: robots.txt read first) in a fresh process whose
    robots.txt is a 4 MB gzip bomb (4 GiB of zeros): its status and peak RSS in MB."""
    script = BOMB_REFRESH.format(support=str(ROOT / "tests" / "support"),
                                 page=str(ROOT / "tests" / "fixtures" / "lambda" /
                                          "lambda_2026_tabs_min.html"))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=300, check=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


# Issue "What we publish stays ours" (27): hostile clients, huge payloads, dead servers,
# terminal bytes, and a test run that leaves the system alone (items 1-11 of the issue)
_C = "tests/system/test_hostile_clients.py::"
_T = "tests/flows/test_terminal_safe.py::"
_O = "tests/flows/test_option_validation.py::"
_P = "tests/flows/test_prefect_server_dies.py::"
_R = "tests/catalog/test_row_level_numbers.py::"

CLIENT_CASES: list[Case] = [
    Case(1, "a planted table, a two-argument-only `round` macro and a view in the published "
            "file (the macro once wedged every refresh; `gpu_prices` 33 -> 0 rows)",
         "the next refresh rebuilds in full into a fresh file and says why in one line: the "
         "same row counts as a clean build, none of the planted objects left",
         _C + "test_planted_table_view_and_macro_never_reach_the_next_build"),
    Case(1, "rows deleted from a published table (same objects, changed file)",
         "full rebuild (the file's size or time differs from its publish record)",
         _C + "test_a_write_into_a_built_table_is_rebuilt_away"),
    Case(1, "no record of what the publish built (a file published by an older gpucost)",
         "full rebuild", _C + "test_no_record_of_the_publish_means_a_full_rebuild"),
    Case(2, "`source_health` replaced by a view over `read_text(<secret file>)`",
         "never executed with file access: `sources` one line, exit 1; refresh prints no "
         "secret and rebuilds the view away",
         _C + "test_planted_table_view_and_macro_never_reach_the_next_build"),
    Case(3, "a CSV of more lines than the payload row cap (1,000,000 offers: 9 min, 2.45 GB)",
         "refused by name before parsing (TooManyRowsError); the last good data stays",
         _C + "test_a_payload_over_the_row_cap_is_refused_by_name"),
    Case(3, "a JSON payload parsing to more rows than the cap",
         "refused by name (TooManyRowsError)",
         _C + "test_a_parsed_payload_over_the_row_cap_is_refused_by_name"),
    Case(4, "SIGKILL of the Prefect server when the first source request arrives",
         "one line, the summary, exit 0 (published); no traceback",
         _P + "test_killed_when_the_fetch_began"),
    Case(4, "the recorded local Prefect server killed before `gpucost refresh`",
         "the plain path, said in one line; summary; exit 0",
         _P + "test_gone_before_the_run_recorded_server"),
    Case(4, "PREFECT_API_URL naming a dead server",
         "the plain path, said in one line; exit 0",
         _P + "test_gone_before_the_run_named_by_prefect_api_url"),
    Case(5, "sku/region with ESC/CSI/OSC, BEL, CR, C1 and U+202E in `offers`",
         "escaped (`\\x1b`), one row, no fake row",
         _T + "test_offers_table_shows_hostile_values_escaped_and_no_fake_row"),
    Case(5, "the same data as `offers --format json|csv`", "the data exact",
         _T + "test_offers_json_and_csv_keep_the_data_exact"),
    Case(5, "the same data in `sql` (table, json, csv) and an SQL error quoting it",
         "table escaped; json/csv exact; the error one escaped line",
         _T + "test_sql_table_escapes_and_json_csv_keep_the_data_exact"),
    Case(5, "`ingest` refusing a file whose error quotes a hostile header",
         "escaped", _T + "test_ingest_prints_a_refused_files_hostile_header_escaped"),
    Case(5, "`refresh` errors quoting a hostile redirect and CSV header (CR + fake row)",
         "escaped on stdout and stderr, no fake line",
         _T + "test_refresh_prints_errors_quoting_a_hostile_header_and_body_escaped"),
    Case(5, "a redirect whose Location holds a bare 0x9b byte or an OSC sequence in its host "
            "(requests raised inside the fetch: a traceback)",
         "a named error (OffHostLinkError), that source alone",
         "tests/catalog/test_http_hostile.py::"
         "test_an_unreadable_redirect_location_is_a_named_error"),
    Case(5, "U+202E and ESC in the HTML report", "shown as `\\u202e`, never raw",
         _T + "test_the_report_neutralises_bidi_overrides_and_controls"),
    Case(6, "a SkyPilot catalog with one `inf` count (OverflowError refused the file) and "
            "counts 0, -1, 1.5, text",
         "the good rows load and publish; one `gpu_count_invalid` reject per bad row",
         _R + "test_skypilot_with_an_inf_count_loads_its_other_rows"),
    Case(6, "Vast counts Infinity, 0, -1, 1.5 (1.5 was published), text",
         "refused per offer; its half-GPU slices kept",
         _R + "test_vast_with_bad_counts_loads_and_publishes_its_good_rows"),
    Case(6, "a GCP page with `GPUs: 1/0` (ZeroDivisionError for the page)", "refused per row",
         _R + "test_gcp_pricing_page_refuses_a_count_that_divides_by_zero"),
    Case(6, "impossible counts reaching the loader from any parser",
         "the load gate refuses them per row",
         "tests/warehouse/test_gates.py::test_count_gate_in_the_loader_keeps_the_other_rows"),
    Case(7, "`serve` with 6- and 7-field crons (6 fields = a refresh per second)",
         "exit 2, one line", _O + "test_serve_refuses_6_and_7_field_crons"),
    Case(7, "a cron that never fires (`0 0 31 2 *`)", "exit 2, one line",
         _O + "test_serve_refuses_a_cron_that_never_fires"),
    Case(7, "`sql --timeout nan` (removed the time limit), inf, -1", "exit 2, one line",
         _O + "test_sql_timeout_takes_a_finite_number_of_seconds"),
    Case(7, "`offers %`, `offers _`", "exit 2: names are literal",
         _O + "test_offers_wildcards_are_not_names"),
    Case(7, "`offers --region _` / `%` (a LIKE pattern)", "literal text",
         _O + "test_offers_region_is_literal_text"),
    Case(7, "`offers --max-price nan`, `--min-memory -80`, `--max-age inf`", "exit 2",
         _O + "test_offers_numeric_options_refuse_nan_inf_negative"),
    Case(7, "`sources --max-age-days nan|-1`", "exit 2",
         _O + "test_sources_max_age_refuses_nan_inf_negative"),
    Case(7, "`report -o /` (printed ingest's message)", "exit 2, one correct line",
         _O + "test_report_to_a_directory_or_an_unwritable_path_is_a_usage_error"),
    Case(8, "a body of one byte every 2 s (held a refresh for the 600 s deadline)",
         "cut at the minimum transfer rate (1 KB/s over 30 s): TooSlowError in ~30 s",
         "tests/catalog/test_http_hostile.py::"
         "test_one_byte_every_2_s_is_cut_within_120_s_at_the_production_defaults"),
    Case(8, "a refresh where one source trickles", "that source fails alone; the others publish",
         "tests/catalog/test_http_hostile.py::"
         "test_a_refresh_publishes_the_good_source_while_another_trickles"),
    Case(9, "`make test` ran `apt-get install` as root",
         "installs nothing outside the repository (no package manager, no sudo)",
         "tests/system/test_package.py::test_make_test_installs_nothing_outside_the_repository"),
    Case(10, "the UI of `gpucost server start` pointed at port 4200",
         "`/ui-settings` names the server's own API", _P + "test_the_ui_names_its_own_api"),
    Case(11, "`pd.read_parquet` on the exports (no Parquet engine in the venv)",
         "reads them (pyarrow in the lock)",
         "tests/warehouse/test_exports.py::test_every_mart_exported_with_documented_columns"),
]


# Issue 40 "Hostile round 4": corrupted files, full disks, planted links, huge answers, URL
# overrides (the embedded mode; items numbered in the order). The cluster mode's
# cases are ROUND4_CLUSTER_CASES at the end of this file.
_R4 = "tests/system/test_hostile_round4.py::"

ROUND4_CASES: list[Case] = [
    Case(1, "one corrupted block in the published file: `offers`, `report`, `sources`, "
            "`estimate`, `sql` (`_duckdb.Error: Corrupt database file` tracebacks)",
         "one line: the published warehouse is corrupted, the next refresh rebuilds it in full; "
         "exit 1; that refresh rebuilds it equal to a clean build",
         _R4 + "test_a_corrupted_block_in_the_published_file_is_one_line_for_every_reader"),
    Case(2, "bit rot inside the published `price_history`, size and mtime kept (refreshes "
            "built on the damaged base, exit 0)",
         "the sha256 recorded at the publish differs: rebuilt in full from the raw layer, said "
         "in the summary line; price_history equal to a clean build",
         _R4 + "test_bit_rot_in_the_published_price_history_is_rebuilt_in_full"),
    Case(3, "a corrupted block in raw.duckdb (`FatalException: Failed to create checkpoint`, "
            "a traceback)",
         "raw.duckdb read whole before a refresh or ingest uses it: one line naming the table "
         "and docs/operations.md's recovery, exit 1; the published file untouched",
         _R4 + "test_a_corrupted_raw_block_is_named_with_its_table_and_the_way_out"),
    Case(4, "a full disk while the build copies the published file (left gpucost_next.duckdb, "
            "15 MB; simulated: ENOSPC after half the copy)",
         "the partial file removed; published file and exports unchanged",
         _R4 + "test_a_full_disk_during_publish_leaves_no_partial_file"),
    Case(4, "a file-size limit (RLIMIT_FSIZE, EFBIG) during a full rebuild's checkpoint",
         "the partial file removed; published file unchanged",
         _R4 + "test_a_file_size_limit_during_the_build_leaves_no_partial_file"),
    Case(5, "a 1-row dated file replayed into SkyPilot `cudo`, whose last payload was undated "
            "(offers in force 156 -> 1, exit 0)",
         "refused by the row guard (RowCountCollapseError); the 156 rows stay; `--force` loads",
         _R4 + "test_a_dated_one_row_file_into_an_undated_stream_is_refused_by_the_row_guard"),
    Case(6, "a symlink planted at `<data dir>/published.json.tmp` (the refresh wrote through "
            "it), and at the exports' temporary names and the writer lock",
         "never followed: fresh temporary names (mkstemp + os.replace) or O_EXCL|O_NOFOLLOW; "
         "the link's target unchanged; a linked writer lock refused by name",
         _R4 + "test_a_symlink_planted_at_a_temporary_name_is_never_written_through"),
    Case(7, "`report -o` onto a character device (replaced /dev/null as root); tested on a "
            "FIFO and a link to it",
         "refused by name (not a regular file), exit 2; the FIFO stays",
         _R4 + "test_report_output_onto_a_fifo_is_refused_by_name"),
    Case(8, "`sql --format json \"select * from range(10000000)\"` (311 s, 4.9 GB; CSV 1.1 GB)",
         "CSV and JSON written as the rows arrive: 1,000,000 rows under 150 MB in a child "
         "process (benchmarks/RESULTS.md: 10M rows before and after)",
         _R4 + "test_sql_streams_csv_and_json_in_bounded_memory"),
    Case(8, "the streamed JSON against the whole-list writer", "the same bytes",
         _R4 + "test_sql_json_streamed_is_the_text_write_json_prints"),
    Case(8, "no memory limit on `sql`; a 6 MB query of 3M columns (6.3 GB, then DuckDB's OOM)",
         "memory_limit 1 GB (GPUCOST_SQL_MEMORY_LIMIT, --memory-limit), past it one line; a "
         "query over 1 MB (exit 2) or an answer over 10,000 columns refused by name",
         _R4 + "test_sql_has_a_memory_limit_and_refuses_huge_queries_by_name"),
    Case(9, "GPUCOST_SOURCE_URL_<NAME> of `file:///etc/passwd`, `http://127.0.0.1:99999/`, an "
            "unclosed IPv6 bracket (53-73-line tracebacks in the summary)",
         "InvalidSourceUrlError in one line (credentials masked); the source falls back, the "
         "refresh publishes",
         _R4 + "test_a_broken_source_url_override_is_one_named_line_and_the_source_falls_back"),
]


# round 4, cluster mode (tests/cluster, run by make cluster-test)
_C4 = "tests/cluster/test_round4_cluster.py::"
ROUND4_CLUSTER_CASES: list[Case] = [
    Case(4, "a cached remote snapshot replaced by other bytes of the same size (`sql --remote` "
            "answered from the planted file)",
         "hashed on every open: removed, downloaded again, one note says so",
         _C4 + "test_a_planted_cache_file_of_the_right_size_is_downloaded_again"),
    Case(4, "a warehouse object trickling 4 bytes/s (held `sql --remote` past 90 s)",
         "given up at the minimum rate (64 KiB/s over timeout_s): one line, exit 1, ~1 s",
         _C4 + "test_a_trickling_warehouse_object_is_given_up_at_the_minimum_rate"),
    Case(4, "a 300 MB CURRENT (read into memory, 992 MB peak, then refused)",
         "refused unread from its Content-Length (1 MiB cap)",
         _C4 + "test_a_huge_current_is_refused_unread"),
    Case(4, "a CURRENT over the cap on the real store", "SnapshotCorruptError, refused unread",
         _C4 + "test_a_current_over_the_cap_on_the_real_store_is_refused"),
    Case(4, "a publish that shrinks the snapshot (gpu_offers 8,461 -> 51 flipped unguarded)",
         "SnapshotShrinkError (the embedded shrink test against CURRENT): nothing uploaded, "
         "CURRENT and exports unchanged",
         _C4 + "test_a_snapshot_that_shrinks_is_refused_against_current"),
    Case(4, "`refresh --upload` from a fresh data dir", "NOT uploaded in one line, exit 3",
         _C4 + "test_refresh_upload_names_the_shrink_in_one_line"),
    Case(4, "servers.json damaged while the cluster runs (`cluster down` stopped 0 of 10)",
         "found by their pid records (and a scan of the cluster folder): all stopped",
         _C4 + "test_down_finds_its_servers_by_their_pid_records"),
    Case(4, "servers.json damaged: `cluster status`", "the ten servers found, all up",
         _C4 + "test_status_of_the_real_cluster_reads_the_pid_records"),
    Case(4, "an Iceberg conflict outlasting pyiceberg's retries (gave up after 1 attempt)",
         "at least 3 rounds: lands once",
         _C4 + "test_a_conflict_that_outlasts_pyiceberg_retries_is_retried"),
    Case(4, "an Iceberg conflict that never ends",
         "SharedRawCommitError naming rounds, commit attempts and conflicts",
         _C4 + "test_a_conflict_that_never_ends_is_named_with_its_attempts"),
    Case(4, "two `cluster refresh` at once (one exited 3, 4 sources not fetched)",
         "the second refused by name (holder's host, pid, start), exit 1; or queued (--wait)",
         _C4 + "test_a_second_cluster_refresh_is_refused_by_name_or_queued"),
    Case(4, "the publisher worker stopped (silent 1,023 s, then the run published later)",
         "cancelled after a bounded wait (GPUCOST_CLUSTER_PUBLISH_START_S), never runs later",
         _C4 + "test_a_publish_run_nobody_starts_is_cancelled_and_never_publishes"),
    Case(4, "`cluster refresh` whose publish run was cancelled",
         "its last line names why: NOT published: no publisher worker started ..., exit 1",
         _C4 + "test_cluster_refresh_says_the_publish_run_was_cancelled"),
]
