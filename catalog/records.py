"""Typed records every source parser produces, and the named errors of the source layer.

A parser turns one payload (bytes saved verbatim) into a ParseResult: accepted observations
plus rejected rows with their reason. Parsers never touch DuckDB.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

# The pricing-model vocabulary (one meaning per value).
PRICING_MODELS = frozenset(
    {
        "on_demand",  # list price, pay as you go
        "spot",  # preemptible / spot / low-priority capacity
        "community",  # marketplace / community-hosted capacity (e.g. RunPod Community Cloud)
        "interruptible_bid",  # a bid floor on a marketplace (e.g. Vast min_bid)
        "reserved_1m",  # 1-month commitment, hourly equivalent
        "reserved_6m",  # 6-month commitment, hourly equivalent
        "reserved_1y",  # 1-year commitment, hourly equivalent
        "reserved_3y",  # 3-year commitment, hourly equivalent
        "savings_plan_1y",  # 1-year spend commitment (savings plan), hourly equivalent
        "savings_plan_3y",  # 3-year spend commitment (savings plan), hourly equivalent
        "queued",  # capacity granted from a queue when free, no start promised (GCP DWS flex-start)
        "capacity_block",  # dates booked ahead, paid up front (AWS Capacity Blocks, GCP calendar)
    }
)

# How a commitment is paid, where the payload states it (None: not stated).
PAYMENTS = frozenset({"no_upfront", "partial_upfront", "all_upfront"})


# What a price buys (DESIGN.md invariant 14): one meaning per value.
PRICE_KINDS = frozenset(
    {
        "instance",  # a whole rentable instance / machine (the default)
        # a GPU that must be attached to a host VM, priced together with the cheapest host it
        # attaches to from the same catalog (GCP N1 + T4: GPU row + n1 VM row)
        "gpu_with_host",
        # an attach-only GPU with no host price in the payload: the GPU alone, never a
        # minimum or a price basis (listed only)
        "gpu_only",
        # a GPU component price with vCPUs and RAM billed on top (CoreWeave's 2023 a-la-carte
        # grid): never a minimum or a price basis
        "gpu_component",
        # a per-GPU list price of a shape rented only whole, multiplied out to the shape
        # (Oracle's price list: BM.GPU.H100.8 = 8 x the per-GPU price)
        "shape_per_gpu",
    }
)


@dataclass(frozen=True, slots=True)
class PriceObservation:
    """One listed price of one offer (instance type x region x pricing model) at one time.

    `price_per_hour` is always the price of the whole row (the instance), in `currency`.
    Parsers of per-GPU price pages multiply by `gpu_count`. An unknown price is None, never 0.
    `price_kind` (one of PRICE_KINDS) says what that price buys: a whole instance unless the
    parser says otherwise.
    """

    provider: str  # who sells it: aws, azure, gcp, lambda, runpod, vast, ...
    sku: str  # instance type / plan name as the provider spells it
    region: str  # region or zone; "" when the price is not regional
    pricing_model: str  # one of PRICING_MODELS
    price_per_hour: float | None  # instance price per hour, in currency
    gpu_name_raw: str | None  # accelerator name exactly as the source spells it
    gpu_count: float | None  # GPUs in the instance; may be fractional (0.167 of an A10)
    currency: str = "USD"
    os: str = "linux"
    gpu_memory_gb: float | None = None  # per GPU
    vcpus: float | None = None
    ram_gb: float | None = None
    # When this row itself was observed, for payloads that carry many dates (a daily price
    # history file); None means "when the payload was observed" (the loader's observed_at).
    observed_at: datetime | None = None
    # Marketplace aggregates (Vast): price_per_hour is then the median offer of the bucket,
    # offer_count the offers behind it, p10/p90 the 10th/90th percentile offer (same unit).
    offer_count: int | None = None
    price_p10_per_hour: float | None = None
    price_p90_per_hour: float | None = None
    price_kind: str = "instance"  # what the price buys: one of PRICE_KINDS
    # how a commitment is paid, where the payload states it: one of PAYMENTS, None = not stated
    payment: str | None = None
    # whether the offer can be launched now, where the payload states it (a stock flag):
    # True / False; None = the payload does not say
    available: bool | None = None

    def __post_init__(self) -> None:
        if self.pricing_model not in PRICING_MODELS:
            raise ValueError(f"unknown pricing_model {self.pricing_model!r}")
        if self.price_kind not in PRICE_KINDS:
            raise ValueError(f"unknown price_kind {self.price_kind!r}")
        if self.payment is not None and self.payment not in PAYMENTS:
            raise ValueError(f"unknown payment {self.payment!r}")
        if self.observed_at is not None and self.observed_at.tzinfo is None:
            raise ValueError("observed_at must be timezone-aware")


@dataclass(frozen=True, slots=True)
class SpecObservation:
    """One metric of one accelerator as one source states it (long format)."""

    accelerator_name_raw: str
    metric: str  # e.g. peak_bf16_dense_tflops, memory_gb, memory_bw_tbps
    value: float
    unit: str


@dataclass(frozen=True, slots=True)
class ThroughputObservation:
    """One measured benchmark result: a system's throughput on one benchmark x scenario of one
    round (an MLPerf Inference LoadGen summary). Keyed by (round, division, submitter, system):
    the same system folder name exists under several submitters."""

    round: str  # results round, e.g. "v5.1"
    division: str  # closed | open | network
    submitter: str  # the submitter's folder name
    system: str  # the system id (results/<system>/, systems/<system>.json)
    benchmark: str  # model key, normalised: llama2-70b, llama3.1-405b, gpt-oss-120b, ...
    accuracy_target: str  # "99", "99.9" or "" (separate benchmark folders: never add them up)
    scenario: str  # Offline | Server | Interactive (Interactive prints "Scenario : Server")
    metric: str  # tokens_per_second (generated tokens) | samples_per_second
    value: float  # for the whole system under test (all accelerators of all nodes)
    valid: bool  # "Result is : VALID"
    ttft_limit_ms: float | None = None  # p99 time-to-first-token limit (Server/Interactive)
    tpot_limit_ms: float | None = None  # p99 time-per-output-token limit
    ttft_mean_ms: float | None = None  # measured mean time to first token (Server/Interactive)
    tpot_mean_ms: float | None = None  # measured mean time per output token (Server/Interactive)


@dataclass(frozen=True, slots=True)
class SystemDescription:
    """What a benchmarked system is: its accelerators and software (systems/<system>.json)."""

    round: str
    division: str
    submitter: str
    system: str
    system_name: str  # the submitter's free-text name
    accelerator_name_raw: str  # as the submitter spells it
    accelerators_per_node: float
    number_of_nodes: float
    availability: str  # available | preview | rdi
    framework: str  # the software stack ("TensorRT 10.11, CUDA 12.9", "vLLM 0.9.0 ...")


@dataclass(frozen=True, slots=True)
class TrainingRunObservation:
    """One timed run of an MLPerf Training result (one MLLOG `result_N.txt`): the run's own
    start and stop (the only timed interval), what it trained, and how it ended. A result is
    all runs of one system on one benchmark; the score is computed from them in SQL
    (models/intermediate/int_training_results.sql)."""

    round: str  # results round, e.g. "v5.1"
    division: str  # closed | open
    submitter: str  # the submitter's folder name
    system: str  # the system id (results/<system>/, systems/<system>.json)
    benchmark: str  # gpt3 | llama2_70b_lora | llama31_8b | llama31_405b | ...
    run: str  # the run's file stem: result_0, result_01, ...
    run_start: datetime  # run_start time_ms (UTC)
    run_stop: datetime  # run_stop time_ms (UTC)
    status: str  # run_stop metadata status: success | aborted
    samples: float | None  # sequences trained: run_stop samples_count (gpt3: tokens / seq)
    tokens: float | None  # tokens trained in the timed interval
    tokens_basis: str  # how tokens were read: "samples_count x seq_len" | "epoch_num" ...
    global_batch_size: float | None  # sequences per optimizer step
    seq_len: float | None  # tokens per sequence (logged, else the benchmark's fixed length)


@dataclass(frozen=True, slots=True)
class TrainingScalingFactor:
    """The RCP normalisation factor MLCommons multiplies into a training score
    (`scaling.json` beside the result's run logs)."""

    round: str
    division: str
    submitter: str
    system: str
    benchmark: str
    scaling_factor: float


@dataclass(frozen=True, slots=True)
class ServingSweepPoint:
    """One concurrency point of a serving sweep (an InferenceX / vLLM `benchmark_serving` run):
    what the whole server delivered at that many concurrent requests, and the speed each user
    saw. Figures are as the file states them, in tokens per second and milliseconds; what a
    file does not state is None, never a guess (the hardware of a file that does not name it
    comes from a cited curated table in SQL: catalog/inferencex_hardware.csv)."""

    sweep: str  # the sweep's repository path (<owner>/<repo>/<path>, without _concN / .json)
    model: str  # the model served, as the file names it ("zai-org/GLM-4.7")
    hardware_raw: str | None  # the hardware as the file spells it; None when it does not say
    gpus: float | None  # accelerators serving the model, as stated; None when not stated
    framework: str | None  # serving software ("vllm-gaudi 0.17.1rc1"), None when not stated
    precision: str | None  # weights' precision as stated ("BF16"), None when not stated
    input_len: float | None  # tokens per prompt
    output_len: float | None  # tokens generated per request
    concurrency: float  # concurrent requests (max_concurrency)
    output_tokens_per_second: float  # generated tokens/s of the whole server
    total_tokens_per_second: float | None  # input + output tokens/s of the whole server
    output_tokens_per_second_per_gpu_stated: float | None  # the file's own per-GPU figure
    tokens_per_second_per_user: float | None  # generated tokens/s one user sees
    interactivity_basis: str  # how the per-user speed was read: "interactivity", ...
    mean_ttft_ms: float | None
    median_ttft_ms: float | None
    p99_ttft_ms: float | None
    mean_tpot_ms: float | None
    median_tpot_ms: float | None
    p99_tpot_ms: float | None
    requests_completed: float | None


@dataclass(frozen=True, slots=True)
class FxObservation:
    """One euro reference rate as the ECB publishes it: `rate_per_eur` units of `currency` for
    one euro on `rate_date` (a TARGET business day). USD per unit of a currency is derived in
    SQL (models/intermediate/int_fx_rates.sql)."""

    currency: str  # ISO 4217 code, e.g. USD, GBP, JPY
    rate_per_eur: float  # units of currency per 1 EUR
    rate_date: date  # the business day the rate is for


@dataclass(frozen=True, slots=True)
class Reject:
    """A row a parser (or a gate) refused, with the reason. Never drop silently."""

    reason: str  # short machine-readable reason, e.g. "windows_os", "zero_price"
    detail: str = ""  # human-readable detail
    raw_row: str = ""  # the row as text (truncated by the loader)


@dataclass(slots=True)
class ParseResult:
    """What one payload parsed to.

    `stream` names the sub-feed of a source this payload belongs to (e.g. the SkyPilot cloud
    "gcp", or the Azure region "eastus2"): the row-count guard compares a payload only with
    the last good payload of the same source and stream.
    """

    stream: str
    prices: list[PriceObservation] = field(default_factory=list)
    specs: list[SpecObservation] = field(default_factory=list)
    throughput: list[ThroughputObservation] = field(default_factory=list)
    systems: list[SystemDescription] = field(default_factory=list)
    training_runs: list[TrainingRunObservation] = field(default_factory=list)
    training_scaling: list[TrainingScalingFactor] = field(default_factory=list)
    serving_points: list[ServingSweepPoint] = field(default_factory=list)
    fx_rates: list[FxObservation] = field(default_factory=list)
    rejects: list[Reject] = field(default_factory=list)
    observed_at: datetime | None = None  # when the payload itself says it was observed

    @property
    def n_rows(self) -> int:
        """Rows this payload loads (what the row-count guard compares)."""
        return (len(self.prices) + len(self.specs) + len(self.throughput) + len(self.systems)
                + len(self.training_runs) + len(self.training_scaling)
                + len(self.serving_points) + len(self.fx_rates))


@dataclass(frozen=True, slots=True)
class Payload:
    """Bytes fetched from (or replayed for) a source, kept verbatim."""

    name: str  # a short name for the payload (file name or the part of the feed it is)
    content: bytes
    url: str = ""
    content_type: str = ""
    http_status: int | None = None
    ext: str = "bin"  # file extension used when saving it raw: json, csv, html


class SourceError(Exception):
    """Base of every named error a source can raise."""


class FetchError(SourceError):
    """The source could not be fetched (network, HTTP status, size cap)."""


class HttpStatusError(FetchError):
    def __init__(self, url: str, status: int) -> None:
        super().__init__(f"HTTP {status} from {url.split('?')[0]}")
        self.url = url
        self.status = status


class ResponseTooLargeError(FetchError):
    def __init__(self, url: str, limit: int) -> None:
        super().__init__(f"response from {url} exceeds the size cap of {limit} bytes")


class PartsFailedError(FetchError):
    """Every part of a multi-part feed failed; `errors` holds each part's own named error."""

    def __init__(self, source: str, errors: dict[str, FetchError]) -> None:
        by_message: dict[str, list[str]] = {}
        for part, err in errors.items():
            by_message.setdefault(str(err).removeprefix("not tried: "), []).append(part)
        detail = "; ".join(f"{', '.join(p)}: {m}" for m, p in by_message.items())
        super().__init__(f"{source}: every part failed ({detail})")
        self.errors = errors


class InvalidSourceUrlError(FetchError):
    """A GPUCOST_SOURCE_URL_<NAME> override that is not an http(s) URL with a host and a
    valid port (`file:///etc/passwd`, port 99999, an unclosed IPv6 bracket): refused when
    read, that source's failure alone (it falls back to its last good data)."""


class TruncatedResponseError(FetchError):
    """The connection dropped before the whole body arrived (after retries)."""


class RobotsDisallowedError(FetchError):
    """The host's robots.txt forbids fetching this page; we do not fetch it."""


class UnreachableError(FetchError):
    """Connection refused, DNS failure, timeout, reset: the host could not be reached."""


class DeadlineExceededError(FetchError):
    """The source's whole fetch (robots.txt, every request, retry and body read) took longer
    than its overall deadline (catalog.http.FETCH_DEADLINE_S, GPUCOST_FETCH_DEADLINE_S): a
    server that answers slowly, one byte at a time, cannot hold the refresh."""


class TooSlowError(FetchError):
    """A body kept arriving slower than the minimum transfer rate over a whole window
    (catalog.http.MIN_RATE_BPS over MIN_RATE_WINDOW_S; GPUCOST_FETCH_MIN_RATE_BPS and
    GPUCOST_FETCH_MIN_RATE_WINDOW_S, or the source's FetchPolicy): cut there, not retried, so
    a host trickling a byte every few seconds holds the refresh for one window, not until the
    overall deadline (curl's --speed-limit / --speed-time)."""


class OffHostLinkError(FetchError):
    """A redirect or a paging link pointed at another host than the one asked (and not on
    the source's allow-list): not followed."""


class PagingLoopError(FetchError):
    """A paging walk did not end: a link seen twice, a page repeating items already read, or
    more pages than the cap. The walk is refused as a whole."""


class BodyDecodeError(FetchError):
    """The body's Content-Encoding (gzip, deflate...) could not be decoded."""


class PayloadTooLargeError(SourceError):
    """A payload (a file given to `ingest`, a member of a zip) is larger than its cap."""


class ObservationDateError(SourceError):
    """The observation date of a payload lies in the future or before any plausible date:
    refused, so that it can never hold a stream in force against later fetches."""


class AllRowsRefusedError(SourceError):
    """Every row of the payload was refused by the plausibility gates (price band, jump):
    nothing was loaded; the refused rows are in raw.rejects, the last good data stays in
    force."""


class ParseError(SourceError):
    """The payload is not in the shape this parser knows (layout change, truncated body...)."""


class UnexpectedPayloadError(ParseError):
    """A payload made the parser or the loader fail in a way no named check foresaw
    (RecursionError on deeply nested JSON, OverflowError on a 400-digit number, a corrupt
    zip...). It is that source's failure alone; the message names the original error."""


class EmptyPayloadError(SourceError):
    """The payload parsed to no rows: refused, the last good data stays in force."""


class TooManyRowsError(SourceError):
    """The payload parsed to more rows than the payload row cap (GPUCOST_PAYLOAD_MAX_ROWS):
    refused whole, the last good data stays in force."""


class RowCountCollapseError(SourceError):
    """The payload parsed to far fewer rows than the last good one of the same stream."""
