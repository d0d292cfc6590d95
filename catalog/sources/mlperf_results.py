"""MLPerf Inference results: measured throughput per system (mlcommons/inference_results_vX.Y,
Apache-2.0). Kind "throughput": the measured side of cost per million tokens.

Two kinds of payload, told apart by their path in the results repository (a LoadGen summary
does not say which system, round or submitter it belongs to, so the path is part of the
observation; `gpucost ingest mlperf_results DIR` keeps it):

* `<round>/<division>/<submitter>/results/<system>/<benchmark>/<scenario>/performance/run_1/
  mlperf_log_summary.txt` -> one ThroughputObservation per metric (tokens/s, samples/s) of
  the whole system under test;
* `<round>/<division>/<submitter>/systems/<system>.json` -> one SystemDescription: the
  accelerator as the submitter spells it, accelerators_per_node x number_of_nodes, the
  availability and the software stack.

Traps handled (../shared/data/throughput/README.md numbers them):
 1. Offline, Server and Interactive are separate scenarios: never compared with each other.
 2. -99 and -99.9 are separate benchmark folders: `accuracy_target` keeps them apart, and the
    same bytes under both paths load twice (the store keys these payloads by path).
 3. Interactive: a scenario folder `Interactive` whose file says `Scenario : Server` (v5.1+),
    or a benchmark folder `llama2-70b-interactive-99` (v5.0): both are scenario Interactive.
 4. Folder spellings: `llama3_1-405b` = `llama3.1-405b`; scenario folders may be lowercase.
 5. Numbers in scientific notation (`1.04298e+06`).
 6. v4.0 Server files without a header `Completed tokens per second:` line: read from
    Additional Stats.
 7. A summary without tokens (GPT-J: samples/s only) loads samples_per_second alone.
 8-11. Counts: accelerators_per_node x number_of_nodes from the system JSON, never from the
    folder name (which may lie: RedHat `XE8640_4xH100_vLLM` used 1 GPU).
12. accelerators_per_node / number_of_nodes as strings ("8"); free-text accelerator names.
13. The same system folder under several submitters: the key is (round, division, submitter,
    system).
14. Availability (available / preview / rdi) is kept; 15. the division is kept.
17. `Result is : INVALID` is loaded with valid = false and never priced.
18. Rounds are pinned by the path; a re-published file replaces its predecessor (same
    stream).

Dated: a summary states no date, so each result is observed at its round's publication day
(catalog/mlperf_rounds.csv, one cited row per round; a round not listed stays undated).

Live fetch: the round's own results table `summary_results.json` (DEFAULT_URL is the
repository root of one round; GPUCOST_SOURCE_URL_MLPERF_RESULTS overrides it) lists every
system x benchmark x scenario; the LLM rows (units Tokens/s) of the closed division are
fetched, their summary and their system description, at most MAX_FILES files, one request
per 0.5 s per host. The table itself is not loaded: tests use it to cross-check the parser.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import cache

from gpucost.catalog import CATALOG_DIR
from gpucost.catalog.records import (
    EmptyPayloadError,
    FetchError,
    ParseError,
    ParseResult,
    Payload,
    Reject,
    SystemDescription,
    ThroughputObservation,
)
from gpucost.catalog.sources.base import FetchContext, FetchPolicy, Part, Source
from gpucost.catalog.specs import number

NAME = "mlperf_results"
DEFAULT_URL = "https://raw.githubusercontent.com/mlcommons/inference_results_v6.0/main"
MAX_FILES = 600  # a round lists about 450 LLM files (v6.0: 372 results, 74 systems)

_ROUND = r"(?:mlperf_inference|inference_results)_v(?P<round>\d+\.\d+)/(?:[^/\s]+/)?"
_WHO = r"(?P<division>closed|open|network)/(?P<submitter>[^/\s]+)/"
_SUMMARY_PATH = re.compile(
    _ROUND + _WHO + r"results/(?P<system>[^/\s]+)/(?P<benchmark>[^/\s]+)/(?P<scenario>[^/\s]+)"
    r"/performance/run_\d+/mlperf_log_summary\.txt$")
_SYSTEM_PATH = re.compile(_ROUND + _WHO + r"systems/(?P<system>[^/\s]+)\.json$")

_NUM = r"(?P<v>[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)"
_SCENARIO_LINE = re.compile(r"^Scenario\s*:\s*(?P<s>\w+)", re.M)
_VALID_LINE = re.compile(r"^Result is\s*:\s*(?P<r>\w+)", re.M)
# the header line first; v4.0 Server files only print it under Additional Stats (trap 6)
_TOKENS = {
    "Offline": re.compile(r"^\s*Tokens per second\s*:\s*" + _NUM, re.M),
    "Server": re.compile(r"^\s*Completed tokens per second\s*:\s*" + _NUM, re.M),
}
_SAMPLES = {
    "Offline": re.compile(r"^\s*Samples per second\s*:\s*" + _NUM, re.M),
    "Server": re.compile(r"^\s*Completed samples per second\s*:\s*" + _NUM, re.M),
}
_TTFT = re.compile(r"^\s*ttft_latency \(ns\)\s*:\s*" + _NUM, re.M)
_TPOT = re.compile(r"^\s*tpot_latency \(ns\)\s*:\s*" + _NUM, re.M)
# measured latencies of a Server/Interactive run (Additional Stats)
_TTFT_MEAN = re.compile(r"^\s*Mean First Token latency \(ns\)\s*:\s*" + _NUM, re.M)
_TPOT_MEAN = re.compile(r"^\s*Mean Time to Output Token \(ns\)\s*:\s*" + _NUM, re.M)
_SCENARIOS = {"offline": "Offline", "server": "Server", "interactive": "Interactive",
              "singlestream": "SingleStream", "multistream": "MultiStream"}
_ACCURACY = re.compile(r"-(?P<a>99(?:\.9)?)$")
_NO_NAME = frozenset({"", "n/a", "na", "none", "todo", "-"})


@cache
def round_published(suite: str = "inference") -> dict[str, datetime]:
    """Round -> the day MLCommons published its results (catalog/mlperf_rounds.csv, each with
    its source): the date a result of that round is observed at (a summary states none)."""
    with (CATALOG_DIR / "mlperf_rounds.csv").open(encoding="utf-8", newline="") as fh:
        return {row["round"].strip(): datetime.fromisoformat(row["published_on"].strip())
                .replace(tzinfo=UTC) for row in csv.DictReader(fh)
                if row["suite"].strip() == suite}


def _path(payload: Payload, pattern: re.Pattern[str]) -> re.Match[str] | None:
    for where in (payload.name, payload.url):
        m = pattern.search(where.replace("\\", "/")) if where else None
        if m:
            return m
    return None


def benchmark_key(folder: str) -> tuple[str, str, bool]:
    """(model key, accuracy target, interactive) of a benchmark folder name:
    'llama2-70b-interactive-99.9' -> ('llama2-70b', '99.9', True); 'llama3_1-405b' ->
    ('llama3.1-405b', '', False)."""
    name = folder.strip().lower().replace("llama3_1", "llama3.1")
    m = _ACCURACY.search(name)
    accuracy = m.group("a") if m else ""
    if m:
        name = name[:m.start()]
    interactive = name.endswith("-interactive")
    if interactive:
        name = name[: -len("-interactive")]
    return name, accuracy, interactive


def _metric(pattern: re.Pattern[str], text: str) -> float | None:
    m = pattern.search(text)
    return float(m.group("v")) if m else None


def parse_summary(payload: Payload, where: re.Match[str]) -> ParseResult:
    text = payload.content.decode("utf-8", errors="replace")
    if "MLPerf Results Summary" not in text:
        raise ParseError(f"{NAME} {payload.name}: not a LoadGen summary "
                         "(no 'MLPerf Results Summary' header)")
    model, accuracy, interactive = benchmark_key(where.group("benchmark"))
    folder = _SCENARIOS.get(where.group("scenario").lower())
    line = _SCENARIO_LINE.search(text)
    printed = _SCENARIOS.get(line.group("s").lower()) if line else None
    if printed is None:
        raise ParseError(f"{NAME} {payload.name}: no 'Scenario :' line")
    if folder == "Interactive" or interactive:
        if printed != "Server":  # Interactive runs print Scenario : Server (trap 3)
            raise ParseError(f"{NAME} {payload.name}: an Interactive run says Scenario : "
                             f"{printed}")
        scenario = "Interactive"
    elif folder is not None and folder != printed:
        raise ParseError(f"{NAME} {payload.name}: scenario folder {where.group('scenario')!r} "
                         f"but the file says Scenario : {printed}")
    else:
        scenario = printed
    kind = "Offline" if printed == "Offline" else "Server"
    valid_line = _VALID_LINE.search(text)
    if valid_line is None:
        raise ParseError(f"{NAME} {payload.name}: no 'Result is :' line")
    valid = valid_line.group("r").upper() == "VALID"
    key = dict(round=f"v{where.group('round')}", division=where.group("division"),
               submitter=where.group("submitter"), system=where.group("system"))
    result = ParseResult(stream="/".join([*key.values(), model + (f"-{accuracy}" if accuracy
                                                                  else ""), scenario]),
                         observed_at=round_published().get(key["round"]))
    ttft, tpot = _metric(_TTFT, text), _metric(_TPOT, text)
    ttft_mean, tpot_mean = _metric(_TTFT_MEAN, text), _metric(_TPOT_MEAN, text)
    limits = dict(ttft_mean_ms=ttft_mean / 1e6 if ttft_mean and scenario != "Offline" else None,
                  tpot_mean_ms=tpot_mean / 1e6 if tpot_mean and scenario != "Offline" else None,
                  ttft_limit_ms=ttft / 1e6 if ttft is not None and scenario != "Offline"
                  else None,
                  tpot_limit_ms=tpot / 1e6 if tpot is not None and scenario != "Offline"
                  else None)
    for metric, patterns in (("tokens_per_second", _TOKENS), ("samples_per_second", _SAMPLES)):
        value = _metric(patterns[kind], text)
        if value is None:
            continue
        if not value > 0:
            result.rejects.append(Reject("not_a_figure", f"{metric} {value}", text[:400]))
            continue
        result.throughput.append(ThroughputObservation(
            **key, benchmark=model, accuracy_target=accuracy, scenario=scenario,
            metric=metric, value=value, valid=valid, **limits))
    if not result.throughput:
        raise EmptyPayloadError(f"{NAME} {payload.name}: a summary with no tokens or samples "
                                "per second")
    if not valid:
        result.rejects.append(Reject("invalid_result", f"{result.stream}: Result is "
                                     f"{valid_line.group('r')}", ""))
    return result


def text(value: object) -> str:
    """A system description's field as one line of text ('' when absent)."""
    return " ".join(str(value).split()) if value is not None else ""


def system_json(payload: Payload, source: str) -> dict:
    """An MLPerf `systems/<system>.json` (Inference and Training share the format), decoded;
    a named ParseError when it is not one."""
    try:
        data = json.loads(payload.content)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ParseError(f"{source} {payload.name}: truncated or invalid JSON ({exc})") from exc
    if not isinstance(data, dict) or "accelerator_model_name" not in data:
        raise ParseError(f"{source} {payload.name}: not an MLPerf system description "
                         "(no accelerator_model_name)")
    return data


def system_result(data: dict, key: dict[str, str],
                  observed_at: datetime | None = None) -> ParseResult:
    """The SystemDescription of a decoded system JSON under `key` (round, division,
    submitter, system): accelerators_per_node x number_of_nodes, never a folder name; a system
    without a named accelerator or a count (a CPU-only server) is a reject, not a row."""
    result = ParseResult(stream="/".join([key["round"], key["division"], key["submitter"],
                                          "systems", key["system"]]), observed_at=observed_at)
    name = text(data.get("accelerator_model_name"))
    per_node = number(text(data.get("accelerators_per_node")))
    nodes = number(text(data.get("number_of_nodes"))) or 1.0
    if name.lower() in _NO_NAME or not per_node or not 0 < per_node * nodes < 1e6:
        result.rejects.append(Reject(
            "no_accelerator", f"{text(data.get('system_name'))}: accelerator {name!r}, "
            f"{text(data.get('accelerators_per_node'))!r} per node", ""))
        return result
    result.systems.append(SystemDescription(
        **key, system_name=text(data.get("system_name")), accelerator_name_raw=name,
        accelerators_per_node=per_node, number_of_nodes=nodes,
        availability=text(data.get("status")).lower(),
        framework=text(data.get("framework")) or text(data.get("other_software_stack"))))
    return result


def parse_system(payload: Payload, where: re.Match[str]) -> ParseResult:
    key = dict(round=f"v{where.group('round')}", division=where.group("division"),
               submitter=where.group("submitter"), system=where.group("system"))
    return system_result(system_json(payload, NAME), key,
                         observed_at=round_published().get(key["round"]))


def parse(payload: Payload) -> ParseResult:
    summary = _path(payload, _SUMMARY_PATH)
    if summary:
        return parse_summary(payload, summary)
    system = _path(payload, _SYSTEM_PATH)
    if system:
        return parse_system(payload, system)
    raise ParseError(
        f"{NAME} {payload.name}: cannot tell the round, submitter and system from its path; "
        "give the file at its results-repository path (.../inference_results_vX.Y/closed/"
        "<submitter>/results/<system>/<benchmark>/<scenario>/performance/run_1/"
        "mlperf_log_summary.txt or .../closed/<submitter>/systems/<system>.json)")


def _location(row: dict[str, object]) -> str:
    """The summary's folder from a results-table row (v5.1 stops at the scenario, v6.0 adds
    performance/run_1, with a leading './')."""
    loc = str(row.get("Location") or "").strip().lstrip("./").rstrip("/")
    if not loc:
        return ""
    if not loc.endswith("/performance/run_1"):
        loc += "/performance/run_1"
    return loc


def _parts(ctx: FetchContext) -> Iterator[Part]:
    base = ctx.url().rstrip("/")
    index = ctx.get(f"{base}/summary_results.json", name="summary_results.json", ext="json")
    try:
        rows = json.loads(index.content)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise FetchError(f"{NAME}: summary_results.json is not JSON ({exc})") from exc
    if not isinstance(rows, list):
        raise FetchError(f"{NAME}: summary_results.json is not a list of results")
    seen: set[str] = set()
    count = 0
    for row in rows:
        if not isinstance(row, dict) or str(row.get("Performance_Units")) != "Tokens/s":
            continue
        division = str(row.get("Category") or "")
        version = str(row.get("version") or "").lstrip("v")
        loc = _location(row)
        if division != "closed" or not re.fullmatch(r"\d+\.\d+", version) or not loc:
            continue
        submitter, system = str(row.get("Submitter") or ""), str(row.get("Platform") or "")
        prefix = f"inference_results_v{version}"
        docs = [(f"{loc}/mlperf_log_summary.txt", "txt")]
        sys_path = f"{division}/{submitter}/systems/{system}.json"
        if sys_path not in seen:
            docs.insert(0, (sys_path, "json"))
        for path, ext in docs:
            if path in seen or count >= MAX_FILES:
                continue
            seen.add(path)
            count += 1
            url = f"{base}/{path}"
            if ctx.is_unreachable(url):  # the host went away: the rest would fail alike
                return
            yield Part(path, url, f"{prefix}/{path}", ext)


SOURCE = Source(
    name=NAME, kind="throughput", default_url=DEFAULT_URL, parse=parse, parts=_parts,
    policy=FetchPolicy(min_interval_s=0.5),
    description="MLPerf Inference results: measured tokens/s per system (MLCommons)",
    tree_files=("**/systems/*.json", "**/mlperf_log_summary.txt"),
)
