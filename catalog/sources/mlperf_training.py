"""MLPerf Training results: measured time to train per system (mlcommons/training_results_vX.Y,
Apache-2.0). Kind "throughput": the measured side of training cost.

A training result is all runs of one system on one benchmark. Three kinds of payload, told apart
by their path in the results repository (a run log does not reliably say which system or
submitter it belongs to, so the path is part of the observation):

* `<round>/<submitter>/results/<system>/<benchmark>/result_*.txt` -> one TrainingRunObservation:
  the MLLOG run log's `run_start` / `run_stop` (the only timed interval, epoch milliseconds),
  its status, and the tokens it trained;
* `<round>/<submitter>/results/<system>/<benchmark>/scaling.json` -> one TrainingScalingFactor
  (the RCP normalisation factor MLCommons multiplies into the score);
* `<round>/<submitter>/systems/<system>.json` -> one SystemDescription (the accelerator as the
  submitter spells it, accelerators_per_node x number_of_nodes, availability, software).

The score (MLPerf's own: drop the fastest and the slowest run, mean of the rest, times the
scaling factor; training_rules.adoc "Benchmark Results") is computed in SQL from the runs
(models/intermediate/int_training_results.sql), never here.

Traps handled (../shared/data/training/README.md numbers them):
 3. `submission_platform` / `submission_org` in the log are placeholders or wrong: not read;
    the accelerator and its count come from the system JSON only.
 5. gpt3 "samples" are tokens: tokens = the last `eval_accuracy` `epoch_num` (else the
    `trained_samples` / `train_samples` logged after `run_stop`).
 6. `train_samples` is the dataset size in lora / llama31 NVIDIA-stack logs: tokens =
    `run_stop` `samples_count` x sequence length.
 - llama2_70b_lora logs no sequence length: the rules fix it to the reference, 8192
   (SEQ_LEN_FIXED).
11. Run files are named result_0..9, result_1..10, result_01..10: the stem is kept as `run`.
 - Only lines holding `:::MLLOG ` are read (the rest is framework output); a line that does
   not decode is skipped and counted in a reject.
 - A run whose `run_stop` says `aborted` is loaded with its status (the score treats it as the
   slowest run; a result with two is invalid).

Live fetch: the round's git tree (GitHub's trees API, DEFAULT_URL names the repository; a
GPUCOST_SOURCE_URL_MLPERF_TRAINING override points at another round or a mirror) lists every
file; the LLM benchmarks' run logs, scaling factors and the system files they use are fetched
from raw.githubusercontent.com (GPUCOST_SOURCE_URL_MLPERF_TRAINING_RAW overrides it) at the
tree's commit, at most MAX_FILES files, one request per 0.5 s per host. The
tree listing itself is not loaded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime

from gpucost.catalog.records import (
    EmptyPayloadError,
    FetchError,
    ParseError,
    ParseResult,
    Payload,
    Reject,
    TrainingRunObservation,
    TrainingScalingFactor,
)
from gpucost.catalog.sources.base import FetchContext, FetchPolicy, Part, Source
from gpucost.catalog.sources.mlperf_results import system_json, system_result, text

NAME = "mlperf_training"
DEFAULT_URL = "https://api.github.com/repos/mlcommons/training_results_v5.1"
RAW_BASE = "https://raw.githubusercontent.com/mlcommons/{repo}"  # GPUCOST_SOURCE_URL_..._RAW
MAX_FILES = 400
# LLM benchmarks a cost question maps to (gpt3 retired after v4.1; llama31_* from v5.0)
LLM_BENCHMARKS = ("gpt3", "llama2_70b_lora", "llama31_8b", "llama31_405b", "llama31_70b",
                  "gpt_oss_20b", "deepseekv3_671b")
# tokens per sequence where the log does not say: the rules fix it to the reference
SEQ_LEN_FIXED = {"llama2_70b_lora": 8192.0, "bert": 512.0}
# older rounds' benchmarks read for like-for-like speed pairs (README-older-rounds.md): bert
# samples are sequences (512-token slots); not fetched live (a cost question maps to LLMs)
PAIR_BENCHMARKS = ("bert",)

_ROUND = r"(?:mlperf_training|training_results)_v(?P<round>\d+\.\d+)/(?:[^/\s]+/)?"
_RESULT_DIR = r"(?P<submitter>[^/\s]+)/results/(?P<system>[^/\s]+)/(?P<benchmark>[^/\s]+)/"
_RUN_PATH = re.compile(_ROUND + _RESULT_DIR + r"(?P<run>result_[^/\s]*)\.txt$")
_SCALING_PATH = re.compile(_ROUND + _RESULT_DIR + r"scaling\.json$")
_SYSTEM_PATH = re.compile(_ROUND + r"(?P<submitter>[^/\s]+)/systems/(?P<system>[^/\s]+)\.json$")
_MARK = ":::MLLOG "
_DIVISIONS = ("closed", "open")


def _path(payload: Payload, pattern: re.Pattern[str]) -> re.Match[str] | None:
    for where in (payload.name, payload.url):
        m = pattern.search(where.replace("\\", "/")) if where else None
        if m:
            return m
    return None


def _events(text: str) -> tuple[list[dict], int]:
    """The MLLOG events of a log, in file order, and how many marked lines did not decode."""
    events, bad = [], 0
    for line in text.splitlines():
        at = line.find(_MARK)
        if at < 0:
            continue
        try:
            event = json.loads(line[at + len(_MARK):])
        except json.JSONDecodeError:
            bad += 1
            continue
        if isinstance(event, dict) and isinstance(event.get("key"), str):
            events.append(event)
        else:
            bad += 1
    return events, bad


def _when(event: dict) -> datetime | None:
    ms = event.get("time_ms")
    if isinstance(ms, bool) or not isinstance(ms, int | float) or not ms > 0:
        return None
    try:
        return datetime.fromtimestamp(ms / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def _positive(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    value = float(value)
    return value if 0 < value < float("inf") else None


def _bert_samples(events: list[dict], gbs: float | None) -> tuple[float | None, str | None]:
    """The sequences a bert run trained (README-older-rounds.md, "bert keys" and trap 7): the
    last `eval_accuracy` `epoch_num` where it counts samples; v1.0 NVIDIA logs put 1 there, so
    then `train_samples` logged after the last evaluation. A `train_samples` logged before
    training (the v1.0 TPU log's cap of 3,505,152 right after run_start) is never read."""
    evals = [e for e in events if e["key"] == "eval_accuracy"
             and isinstance(e.get("metadata"), dict)]
    last = _positive(evals[-1]["metadata"].get("epoch_num")) if evals else None
    if last is not None and last > (gbs or 1.0):
        return last, "eval_accuracy epoch_num (samples) x seq_len"
    since = (_when(evals[-1]) if evals else None)
    after = [e for e in events if e["key"] == "train_samples" and since is not None
             and (_when(e) or since) >= since]
    samples = _positive(after[-1].get("value")) if after else None
    return (samples, "train_samples after the last eval x seq_len") if samples else (None, None)


def parse_run(payload: Payload, where: re.Match[str]) -> ParseResult:
    text = payload.content.decode("utf-8", errors="replace")
    events, bad = _events(text)
    if not events:
        raise ParseError(f"{NAME} {payload.name}: not an MLPerf run log (no ':::MLLOG ' line)")
    first: dict[str, dict] = {}
    for event in events:
        first.setdefault(event["key"], event)
    start = next((e for e in events if e["key"] == "run_start"
                  and e.get("event_type") == "INTERVAL_START"), first.get("run_start"))
    stop = next((e for e in events if e["key"] == "run_stop"), None)
    started, stopped = (_when(start) if start else None), (_when(stop) if stop else None)
    if start is None and stop is None:
        raise EmptyPayloadError(f"{NAME} {payload.name}: a run log with no run in it (no "
                                "run_start, no run_stop)")
    if started is None or stopped is None:
        raise ParseError(f"{NAME} {payload.name}: a run log without its timed interval "
                         f"(run_start {'found' if started else 'missing'}, run_stop "
                         f"{'found' if stopped else 'missing'})")
    if not stopped > started:
        raise ParseError(f"{NAME} {payload.name}: run_stop ({stopped:%Y-%m-%d %H:%M:%S}) is "
                         f"not after run_start ({started:%Y-%m-%d %H:%M:%S})")
    meta = stop.get("metadata") if isinstance(stop.get("metadata"), dict) else {}
    status = str(meta.get("status") or "unknown").strip().lower()
    benchmark = where.group("benchmark").strip().lower()
    division = str((first.get("submission_division") or {}).get("value") or "").lower()
    division = division if division in _DIVISIONS else "closed"
    gbs = _positive((first.get("global_batch_size") or {}).get("value"))
    seq_len = (_positive((first.get("max_sequence_length") or {}).get("value"))
               or SEQ_LEN_FIXED.get(benchmark))
    samples = _positive(meta.get("samples_count"))
    tokens = basis = None
    rejects: list[Reject] = []
    if benchmark == "gpt3":  # trap 5: gpt3 counts tokens where the others count sequences
        evals = [e for e in events if e["key"] == "eval_accuracy"
                 and isinstance(e.get("metadata"), dict)]
        tokens = _positive(evals[-1]["metadata"].get("epoch_num")) if evals else None
        basis = "eval_accuracy epoch_num (tokens)" if tokens else None
        if tokens is None:
            after = [e for e in events if e["key"] in ("trained_samples", "train_samples")
                     and (_when(e) or started) >= stopped]
            tokens = _positive(after[-1].get("value")) if after else None
            basis = f"{after[-1]['key']} after run_stop (tokens)" if tokens else None
        samples = tokens / seq_len if tokens and seq_len else None
    elif benchmark == "bert":  # older rounds: samples trained, read where each stack logs it
        samples, basis = _bert_samples(events, gbs)
        tokens = samples * seq_len if samples and seq_len else None
    elif samples is not None and seq_len is not None:  # trap 6
        tokens, basis = samples * seq_len, "run_stop samples_count x seq_len"
    if tokens is None:
        rejects.append(Reject("no_tokens", f"{payload.name}: the tokens trained cannot be read "
                              "(no samples_count on run_stop, or no sequence length)", ""))
    if bad:
        rejects.append(Reject("undecodable_line", f"{payload.name}: {bad} ':::MLLOG ' line(s) "
                              "that are not JSON", ""))
    key = dict(round=f"v{where.group('round')}", division=division,
               submitter=where.group("submitter"), system=where.group("system"))
    result = ParseResult(stream="/".join([*key.values(), benchmark, where.group("run")]),
                         observed_at=stopped)
    result.training_runs.append(TrainingRunObservation(
        **key, benchmark=benchmark, run=where.group("run"), run_start=started,
        run_stop=stopped, status=status, samples=samples, tokens=tokens,
        tokens_basis=basis or "", global_batch_size=gbs, seq_len=seq_len))
    result.rejects += rejects
    return result


def parse_scaling(payload: Payload, where: re.Match[str]) -> ParseResult:
    try:
        data = json.loads(payload.content)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ParseError(f"{NAME} {payload.name}: truncated or invalid JSON ({exc})") from exc
    if data == {}:
        raise EmptyPayloadError(f"{NAME} {payload.name}: an empty scaling file")
    factor = _positive(data.get("scaling_factor")) if isinstance(data, dict) else None
    if factor is None:
        raise ParseError(f"{NAME} {payload.name}: no positive scaling_factor")
    if not 0.5 <= factor <= 2.0:  # RCP factors are small corrections (1.0-1.17 recorded)
        raise ParseError(f"{NAME} {payload.name}: scaling_factor {factor} is outside 0.5-2")
    key = dict(round=f"v{where.group('round')}", division="closed",
               submitter=where.group("submitter"), system=where.group("system"))
    benchmark = where.group("benchmark").strip().lower()
    result = ParseResult(stream="/".join([*key.values(), benchmark, "scaling"]))
    result.training_scaling.append(TrainingScalingFactor(**key, benchmark=benchmark,
                                                         scaling_factor=factor))
    return result


_TPU_GENERATION = re.compile(r"\btpu[-_ ]?(v\d+[a-z]?)\b", re.IGNORECASE)


def parse_system(payload: Payload, where: re.Match[str]) -> ParseResult:
    data = system_json(payload, NAME)
    name = text(data.get("accelerator_model_name"))
    gen = _TPU_GENERATION.search(text(data.get("system_name")) or where.group("system"))
    if name.upper() == "TPU" and gen:  # README-older-rounds trap 3: v1.0 names it just "TPU"
        data = {**data, "accelerator_model_name": f"TPU {gen.group(1).lower()}"}
    division = text(data.get("division")).lower()  # a training round has no division folder
    return system_result(data, dict(
        round=f"v{where.group('round')}",
        division=division if division in _DIVISIONS else "closed",
        submitter=where.group("submitter"), system=where.group("system")))


def parse(payload: Payload) -> ParseResult:
    for pattern, parser in ((_RUN_PATH, parse_run), (_SCALING_PATH, parse_scaling),
                            (_SYSTEM_PATH, parse_system)):
        where = _path(payload, pattern)
        if where:
            return parser(payload, where)
    raise ParseError(
        f"{NAME} {payload.name}: cannot tell the round, submitter, system and benchmark from "
        "its path; give the file at its results-repository path (.../training_results_vX.Y/"
        "<submitter>/results/<system>/<benchmark>/result_N.txt, .../scaling.json or "
        ".../<submitter>/systems/<system>.json)")


def wanted(paths: list[str]) -> list[str]:
    """The files of a round's tree a cost question needs: the LLM benchmarks' run logs and
    scaling factors, and the system descriptions of the systems that ran them."""
    runs = [p for p in paths if (m := _RUN_PATH.search("training_results_v0.0/" + p))
            and m.group("benchmark").lower() in LLM_BENCHMARKS]
    scaling = [p for p in paths if (m := _SCALING_PATH.search("training_results_v0.0/" + p))
               and m.group("benchmark").lower() in LLM_BENCHMARKS]
    used = {(m.group("submitter"), m.group("system")) for p in runs
            if (m := _RUN_PATH.search("training_results_v0.0/" + p))}
    systems = [p for p in paths if (m := _SYSTEM_PATH.search("training_results_v0.0/" + p))
               and (m.group("submitter"), m.group("system")) in used]
    return sorted(systems) + sorted(scaling) + sorted(runs)


def _parts(ctx: FetchContext) -> Iterator[Part]:
    api = ctx.url().rstrip("/")
    repo = api.rsplit("/", 1)[-1]
    listing = ctx.get(f"{api}/git/trees/HEAD?recursive=1", name="tree.json", ext="json")
    try:
        tree = json.loads(listing.content)
        paths = [str(e["path"]) for e in tree["tree"] if e.get("type") == "blob"]
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError) as exc:
        raise FetchError(f"{NAME}: the tree listing of {repo} is not a git tree ({exc})") from exc
    if not re.fullmatch(r"training_results_v\d+\.\d+", repo):
        raise FetchError(f"{NAME}: {api} does not name a training_results_vX.Y repository")
    raw = ctx.url("raw", default=RAW_BASE.format(repo=repo)).rstrip("/")
    base = f"{raw}/{tree.get('sha') or 'HEAD'}"
    for path in wanted(paths)[:MAX_FILES]:
        url = f"{base}/{path}"
        if ctx.is_unreachable(url):  # the host went away: the rest would fail alike
            return
        yield Part(path, url, f"{repo}/{path}", path.rsplit(".", 1)[-1])


SOURCE = Source(
    name=NAME, kind="throughput", default_url=DEFAULT_URL, parse=parse, parts=_parts,
    policy=FetchPolicy(min_interval_s=0.5),
    description="MLPerf Training results: measured time to train per system (MLCommons)",
    tree_files=("**/systems/*.json", "**/results/*/*/result_*.txt",
                "**/results/*/*/scaling.json"),
)
