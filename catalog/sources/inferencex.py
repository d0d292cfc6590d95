"""InferenceX (formerly InferenceMAX, SemiAnalysisAI): serving sweeps, one point per concurrency.
Kind "throughput": what a server delivers at each load, and the speed each user sees then (the
batch-efficiency curve behind a cost per million tokens at a given interactivity).

Two shapes, told apart by content; the file's repository path keys the sweep (a file does not
name itself, and the hardware of a file that does not state it is looked up by path):

* an InferenceX summary (SemiAnalysisAI/InferenceX-app `<model>/results/*_summary.json`):
  `{"metadata": {model, precision, hardware "8x Intel Gaudi 3 HL-325L", framework, input_len,
  output_len, date "2026-03-14", ...}, "results": [{concurrency, num_gpus, output_throughput,
  total_throughput, output_tput_per_gpu, interactivity, mean/median/p99_ttft_ms and _tpot_ms,
  completed_requests, ...}, ...]}` -> one ServingSweepPoint per result. `interactivity` is
  the file's own tokens/s per user; `output_tput_per_gpu` its own per-GPU figure.
* a vLLM `benchmark_serving` result, one concurrency per file (SemiAnalysisAI/InferenceX
  `experimental/.../results/<stem>_conc<N>.json`): `{date "20260216-125302", model_id,
  max_concurrency, completed, output_throughput (whole server, tok/s), input_throughput,
  median_ttft, p99_ttft, median_tpot, p99_tpot (SECONDS), ...}` -> one ServingSweepPoint.
  Latencies are converted to ms; the speed a user sees is 1 / median_tpot (tokens/s), labelled
  so (`interactivity_basis`). Input and output lengths are read from the file name
  (`_isl1024_osl128_`); the total tokens/s is input_throughput + output_throughput. The
  hardware is not in the file: hardware_raw and gpus stay null here, and
  catalog/inferencex_hardware.csv gives it per folder with the address of the serve script
  that says so (never a guess).

Each payload is dated by the date it states (the summary's `metadata.date`, the vLLM result's
`date`, read as UTC). Named errors: ParseError for another layout, a file away from its
repository path or JSON that does not decode; EmptyPayloadError for a well-formed file with no
point (`results: []`, or a vLLM result that completed no request). A point whose throughput
is not a positive finite number (or whose concurrency is missing, or repeated) is a reject,
never a silent drop.

Live fetch: the five Qwen3.5 files (input 1024 / output 128) from raw.githubusercontent.com
at SemiAnalysisAI/InferenceX `main` (DEFAULT_URL; GPUCOST_SOURCE_URL_INFERENCEX overrides it)
and the GLM-4.7 Gaudi 3 summary from SemiAnalysisAI/InferenceX-app `main` on the same host
(GPUCOST_SOURCE_URL_INFERENCEX_APP overrides it). `gpucost ingest inferencex DIR` loads the
files under a folder laid out by repository (`SemiAnalysisAI_InferenceX/...`,
`SemiAnalysisAI_InferenceX-app/...`, as ../shared/data/throughput/inferencemax_inferencex).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from urllib.parse import urlsplit

from gpucost.catalog.records import (
    EmptyPayloadError,
    ParseError,
    ParseResult,
    Payload,
    Reject,
    ServingSweepPoint,
)
from gpucost.catalog.sources.base import FetchContext, FetchPolicy, Part, Source
from gpucost.catalog.specs import number

NAME = "inferencex"
OWNER = "SemiAnalysisAI"
DEFAULT_URL = f"https://raw.githubusercontent.com/{OWNER}/InferenceX/main"
APP_PATH = f"{OWNER}/InferenceX-app/main"  # on the host of the main URL unless ..._APP says
QWEN_RESULTS = "experimental/token_position_decode_slo/qwen3.5/results"
QWEN_FILES = tuple(f"{QWEN_RESULTS}/qwen35_vllm_tp8_isl1024_osl128_conc{c}.json"
                   for c in (4, 8, 16, 32, 64))
GLM_FILE = "glm-4.7/results/glm47_gaudi3_summary.json"

# <owner>_<repo>/<path> (a recorded folder) or <owner>/<repo>/<ref>/<path> (a raw URL)
_WHERE = re.compile(rf"(?:^|/){OWNER}[_/](?P<repo>InferenceX(?:-app)?)/"
                    r"(?:(?:main|master|HEAD|[0-9a-f]{40})/)?(?P<path>[^?#\s]+\.json)$")
_CONC = re.compile(r"_conc(?P<conc>\d+)$")
_LENGTHS = re.compile(r"_isl(?P<isl>\d+)_osl(?P<osl>\d+)(?:_|$)")
_FRAMEWORK = re.compile(r"(?:^|_)(?P<framework>vllm|sglang|trtllm|trt-llm)(?:_|$)")
_HARDWARE = re.compile(r"^\s*(?P<n>\d+)\s*[x×]\s*(?P<name>.+?)\s*$", re.IGNORECASE)
_VLLM_KEYS = ("model_id", "max_concurrency", "output_throughput")


def _where(payload: Payload) -> tuple[str, str]:
    """(repository "SemiAnalysisAI/InferenceX[-app]", path inside it) from the payload's name
    or URL; ParseError when neither holds a repository path."""
    for text in (payload.name, payload.url):
        m = _WHERE.search(text.replace("\\", "/")) if text else None
        if m:
            return f"{OWNER}/{m.group('repo')}", m.group("path")
    raise ParseError(
        f"{NAME} {payload.name}: cannot tell which repository file this is; give the file at "
        f"its repository path (.../{OWNER}_InferenceX/experimental/.../results/<stem>_conc<N>"
        f".json or .../{OWNER}_InferenceX-app/<model>/results/<name>_summary.json)")


def _document(payload: Payload) -> object:
    try:
        text = payload.content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(f"{NAME} {payload.name}: not UTF-8 ({exc.reason} at byte "
                         f"{exc.start})") from exc
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ParseError(f"{NAME} {payload.name}: truncated or invalid JSON "
                         f"({type(exc).__name__}: {str(exc)[:120]})") from exc


def _text(value: object) -> str:
    return " ".join(str(value).split()) if value is not None else ""


def _positive(value: object) -> float | None:
    """A positive finite number (JSON number or numeric text), else None."""
    n = number(value)
    return n if n is not None and n > 0 else None


def _ms(seconds: object) -> float | None:
    s = number(seconds)
    return s * 1000.0 if s is not None and s >= 0 else None


def _nonneg(value: object) -> float | None:
    n = number(value)
    return n if n is not None and n >= 0 else None


def _date(value: object, fmt: str, what: str) -> datetime | None:
    text = _text(value)
    if not text:
        return None
    try:
        return datetime.strptime(text, fmt).replace(tzinfo=UTC)
    except ValueError as exc:
        raise ParseError(f"{NAME} {what}: date {text[:40]!r} is not a date ({fmt})") from exc


def _raw(point: object) -> str:
    try:
        return json.dumps(point, sort_keys=True)
    except (TypeError, ValueError):
        return repr(point)


def parse_summary(data: dict, repo: str, path: str) -> ParseResult:
    """An InferenceX summary: metadata + one result per concurrency."""
    where = f"{repo}/{path}"
    meta, points = data["metadata"], data.get("results")
    if not isinstance(points, list):
        raise ParseError(f"{NAME} {where}: `results` is not a list of points")
    if not points:
        raise EmptyPayloadError(f"{NAME} {where}: a summary with no result (results: [])")
    model = _text(meta.get("model"))
    if not model:
        raise ParseError(f"{NAME} {where}: the summary's metadata names no model")
    hardware_text = _text(meta.get("hardware"))
    m = _HARDWARE.match(hardware_text)
    hardware = (m.group("name") if m else hardware_text) or None
    hardware_count = float(m.group("n")) if m and int(m.group("n")) > 0 else None
    result = ParseResult(stream=where, observed_at=_date(meta.get("date"), "%Y-%m-%d", where))
    sweep = f"{repo}/{path.removesuffix('.json')}"
    seen: set[float] = set()
    for i, point in enumerate(points):
        if not isinstance(point, dict):
            result.rejects.append(Reject("not_a_point", f"{where}: results[{i}] is not an "
                                         "object", _raw(point)))
            continue
        concurrency = _positive(point.get("concurrency"))
        throughput = _positive(point.get("output_throughput"))
        if concurrency is None:
            result.rejects.append(Reject(
                "no_concurrency", f"{where}: results[{i}] concurrency "
                f"{point.get('concurrency')!r} is not a positive number", _raw(point)))
            continue
        if throughput is None:
            result.rejects.append(Reject(
                "bad_throughput", f"{where}: concurrency {concurrency:g}: output_throughput "
                f"{point.get('output_throughput')!r} is not a positive finite number",
                _raw(point)))
            continue
        if concurrency in seen:
            result.rejects.append(Reject(
                "duplicate_point", f"{where}: concurrency {concurrency:g} listed again (the "
                "first is kept)", _raw(point)))
            continue
        seen.add(concurrency)
        per_user = _positive(point.get("interactivity"))
        result.serving_points.append(ServingSweepPoint(
            sweep=sweep, model=model, hardware_raw=hardware,
            gpus=_positive(point.get("num_gpus")) or hardware_count,
            framework=_text(meta.get("framework")) or None,
            precision=_text(meta.get("precision")) or None,
            input_len=_positive(meta.get("input_len")),
            output_len=_positive(meta.get("output_len")),
            concurrency=concurrency, output_tokens_per_second=throughput,
            total_tokens_per_second=_positive(point.get("total_throughput")),
            output_tokens_per_second_per_gpu_stated=_positive(point.get("output_tput_per_gpu")),
            tokens_per_second_per_user=per_user,
            interactivity_basis="interactivity" if per_user is not None else "not stated",
            mean_ttft_ms=_nonneg(point.get("mean_ttft_ms")),
            median_ttft_ms=_nonneg(point.get("median_ttft_ms")),
            p99_ttft_ms=_nonneg(point.get("p99_ttft_ms")),
            mean_tpot_ms=_nonneg(point.get("mean_tpot_ms")),
            median_tpot_ms=_nonneg(point.get("median_tpot_ms")),
            p99_tpot_ms=_nonneg(point.get("p99_tpot_ms")),
            requests_completed=_nonneg(point.get("completed_requests"))))
    return result


def parse_vllm(data: dict, repo: str, path: str) -> ParseResult:
    """A vLLM benchmark_serving result: one concurrency, latencies in seconds."""
    where = f"{repo}/{path}"
    stem = path.rsplit("/", 1)[-1].removesuffix(".json")
    completed = number(data.get("completed"))
    if completed == 0:
        raise EmptyPayloadError(f"{NAME} {where}: a benchmark that completed no request "
                                "(completed: 0)")
    model = _text(data.get("model_id"))
    concurrency = _positive(data.get("max_concurrency"))
    if not model or concurrency is None:
        raise ParseError(f"{NAME} {where}: a vLLM result without model_id or a positive "
                         f"max_concurrency ({data.get('max_concurrency')!r})")
    named = _CONC.search(stem)
    if named and float(named.group("conc")) != concurrency:
        raise ParseError(f"{NAME} {where}: the file name says concurrency "
                         f"{named.group('conc')}, the file max_concurrency {concurrency:g}")
    result = ParseResult(stream=where,
                         observed_at=_date(data.get("date"), "%Y%m%d-%H%M%S", where))
    throughput = _positive(data.get("output_throughput"))
    if throughput is None:
        result.rejects.append(Reject(
            "bad_throughput", f"{where}: concurrency {concurrency:g}: output_throughput "
            f"{data.get('output_throughput')!r} is not a positive finite number",
            _raw({k: data.get(k) for k in (*_VLLM_KEYS, "completed", "duration")})))
        return result
    lengths = _LENGTHS.search(stem)
    framework = _FRAMEWORK.search(stem)
    tpot_s = _positive(data.get("median_tpot"))
    total = _positive(data.get("total_token_throughput"))
    input_throughput = _positive(data.get("input_throughput"))
    if total is None and input_throughput is not None:
        total = throughput + input_throughput
    result.serving_points.append(ServingSweepPoint(
        sweep=f"{repo}/{path.rsplit('/', 1)[0]}/{_CONC.sub('', stem)}", model=model,
        hardware_raw=None, gpus=None,
        framework=framework.group("framework") if framework else None, precision=None,
        input_len=float(lengths.group("isl")) if lengths else None,
        output_len=float(lengths.group("osl")) if lengths else None,
        concurrency=concurrency, output_tokens_per_second=throughput,
        total_tokens_per_second=total, output_tokens_per_second_per_gpu_stated=None,
        tokens_per_second_per_user=1.0 / tpot_s if tpot_s else None,
        interactivity_basis="1 / median_tpot" if tpot_s else "not stated",
        mean_ttft_ms=_ms(data.get("mean_ttft")), median_ttft_ms=_ms(data.get("median_ttft")),
        p99_ttft_ms=_ms(data.get("p99_ttft")), mean_tpot_ms=_ms(data.get("mean_tpot")),
        median_tpot_ms=_ms(data.get("median_tpot")), p99_tpot_ms=_ms(data.get("p99_tpot")),
        requests_completed=_nonneg(completed)))
    return result


def parse(payload: Payload) -> ParseResult:
    repo, path = _where(payload)
    data = _document(payload)
    if isinstance(data, dict) and isinstance(data.get("metadata"), dict) and "results" in data:
        return parse_summary(data, repo, path)
    if isinstance(data, dict) and all(k in data for k in _VLLM_KEYS):
        return parse_vllm(data, repo, path)
    seen = (f"keys {', '.join(sorted(map(str, data))[:8])}" if isinstance(data, dict)
            else f"a JSON {type(data).__name__}")
    raise ParseError(
        f"{NAME} {payload.name}: neither an InferenceX summary ({{metadata, results}}) nor a "
        f"vLLM benchmark_serving result ({', '.join(_VLLM_KEYS)}): {seen}")


def _parts(ctx: FetchContext) -> Iterator[Part]:
    base = ctx.url().rstrip("/")
    origin = urlsplit(base)
    app = ctx.url("app", default=f"{origin.scheme}://{origin.netloc}/{APP_PATH}").rstrip("/")
    for path in QWEN_FILES:
        yield Part(f"{OWNER}/InferenceX/{path}", f"{base}/{path}",
                   f"{OWNER}_InferenceX/{path}", "json")
    yield Part(f"{OWNER}/InferenceX-app/{GLM_FILE}", f"{app}/{GLM_FILE}",
               f"{OWNER}_InferenceX-app/{GLM_FILE}", "json")


SOURCE = Source(
    name=NAME, kind="throughput", default_url=DEFAULT_URL, parse=parse, parts=_parts,
    policy=FetchPolicy(min_interval_s=0.5),
    description="InferenceX serving sweeps: tokens/s per server and per user at each "
                "concurrency (SemiAnalysisAI)",
    tree_files=("**/experimental/*/*/results/*_conc*.json", "**/results/*_summary.json"),
)
