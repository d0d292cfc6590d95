"""MLPerf Inference system descriptions (mlcommons/inference_results_vX.Y, Apache-2.0).

Each `closed/<submitter>/systems/<system>.json` is a flat JSON object written by the
submitter: the accelerator as the vendor/OEM spells it ("NVIDIA H200-SXM-141GB",
"AMD Instinct MI300X-NPS1-SPX-192GB-750W", "TPU v5e"), its memory, interconnect, how many
per node, free-text hardware notes ("H200 TGP 700W"). A vendor-authored source for memory and
power of shipped SKUs, and a rich source of real-world spellings for catalog/aliases.csv.

Read from one file (the stream is "<submitter>/<file stem>", so every system stays in force).
The file stem is the system's id in the results repository (results refer to
`systems/<id>.json`; two files may share a system_name: 92 recorded files, 88 names), so it is
the stream's identity: a file served again at the same path replaces its predecessor (and the
row-count guard applies), and the same bytes under another name load once ('unchanged').

* accelerator_model_name -> the name; "N/A", "", "TODO" or accelerators_per_node 0 is a
  CPU-only system: the payload is valid and loads no figure, only Reject("no_accelerator");
* accelerator_memory_capacity "80 GB" / "81559 MiB" -> memory_gb in the stated unit;
  "Shared with host", "disabled" -> Reject("not_a_figure");
* tdp_w from "TGP 700W" in hw_notes, else a "-750W" suffix of the name;
* interconnect_bw_gbps from accelerator_interconnect when it names NVLink with a GB/s figure
  ("18x 4th Gen NVLink, 900GB/s": NVIDIA's bidirectional per-GPU total, the catalog's
  convention). Other link texts (XGMI, ICI "1600 Gbps", PCIe) are not read;
* accelerators_per_system = accelerators_per_node (int or string!) x number_of_nodes.

Live fetch: the GitHub contents API lists `closed/` (DEFAULT_URL, overridable with
GPUCOST_SOURCE_URL_MLPERF) and each submitter's `systems/` folder; every JSON is then fetched
from its download_url, at most one request per 1.0 s per host, at most
MAX_FILES files. Results rounds are immutable: an identical file reloads as 'unchanged'.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import PurePosixPath

from gpucost.catalog.records import (
    FetchError,
    ParseError,
    ParseResult,
    Payload,
    Reject,
    UnreachableError,
)
from gpucost.catalog.sources.base import FetchContext, FetchPolicy, Part, Source
from gpucost.catalog.specs import SpecCollector, number

NAME = "mlperf"
DEFAULT_URL = "https://api.github.com/repos/mlcommons/inference_results_v4.1/contents/closed"
MAX_FILES = 400

_NO_NAME = frozenset({"", "n/a", "na", "none", "todo", "-"})
_MEMORY = re.compile(r"^\s*(?P<n>\d+(?:[.,]\d+)?)\s*(?P<unit>GB|GiB|MB|MiB|TB)\s*$", re.I)
_MEMORY_UNITS = {"gb": "GB", "gib": "GiB", "mb": "MB", "mib": "MiB", "tb": "TB"}
_TGP = re.compile(r"\bT[GD]P\s*:?\s*(?P<w>\d{2,4})\s*W\b", re.I)
_NAME_WATTS = re.compile(r"-(?P<w>\d{2,4})W$", re.I)
_NVLINK_BW = re.compile(r"(?P<n>\d+(?:\.\d+)?)\s*GB/s", re.I)


def _listing(ctx: FetchContext, url: str) -> list[dict[str, object]]:
    payload = ctx.get(url, name="listing.json", ext="json")
    try:
        items = json.loads(payload.content)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise FetchError(f"mlperf: listing {url} is not JSON ({exc})") from exc
    if not isinstance(items, list):
        raise FetchError(f"mlperf: listing {url} is not a list of entries")
    return [i for i in items if isinstance(i, dict)]


def _parts(ctx: FetchContext) -> Iterator[Part]:
    """Every submitter's systems/*.json (at most MAX_FILES), found through the listings."""
    base = ctx.url().rstrip("/")
    submitters = [str(i["name"]) for i in _listing(ctx, base)
                  if i.get("type") == "dir" and i.get("name")]
    files: list[tuple[str, str]] = []
    for sub in submitters:
        try:
            entries = _listing(ctx, f"{base}/{sub}/systems")
        except FetchError as exc:
            if isinstance(exc, UnreachableError):
                ctx.fail(sub, exc)
                return
            if "HTTP 404" not in str(exc):  # a submitter without systems/ is normal
                ctx.fail(sub, exc)
            continue
        for e in entries:
            name, url = str(e.get("name") or ""), str(e.get("download_url") or "")
            if name.endswith(".json") and url:
                files.append((f"{sub}/systems/{name}", url))
    for rel, url in files[:MAX_FILES]:
        if ctx.is_unreachable(url):  # the host went away: the rest would fail the same way
            return
        yield Part(rel, url, rel, "json")


def _text(value: object) -> str:
    return " ".join(str(value).split()) if value is not None else ""


def parse(payload: Payload) -> ParseResult:
    try:
        data = json.loads(payload.content)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ParseError(f"mlperf {payload.name}: truncated or invalid JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise ParseError(f"mlperf {payload.name}: a system description is a JSON object")
    if "accelerator_model_name" not in data:
        raise ParseError(f"mlperf {payload.name}: no accelerator_model_name field "
                         "(not an MLPerf system description)")
    submitter = _text(data.get("submitter")) or "unknown"
    stem = PurePosixPath(payload.name).stem
    result = ParseResult(stream=f"{submitter}/{stem}")
    raw = json.dumps({k: v for k, v in data.items() if k.startswith("accelerator")
                      or k in ("hw_notes", "system_name", "submitter", "number_of_nodes")},
                     sort_keys=True)[:2000]
    name = _text(data.get("accelerator_model_name"))
    per_node = number(_text(data.get("accelerators_per_node")))
    if name.lower() in _NO_NAME or not per_node:
        result.rejects.append(Reject(
            "no_accelerator", f"{_text(data.get('system_name'))}: accelerator {name!r}, "
            f"{_text(data.get('accelerators_per_node'))!r} per node", raw))
        return result  # a CPU-only system: nothing to load, recorded as a reject
    out = SpecCollector(result)

    memory = _text(data.get("accelerator_memory_capacity"))
    m = _MEMORY.match(memory)
    if m:
        out.add(name, "memory_gb", m.group("n").replace(",", "."),
                _MEMORY_UNITS[m.group("unit").lower()], raw)
    elif memory.lower() not in _NO_NAME:
        result.rejects.append(Reject("not_a_figure", f"{name} memory: {memory!r}", raw))

    tdp = _TGP.search(_text(data.get("hw_notes"))) or _NAME_WATTS.search(name)
    if tdp:
        out.add(name, "tdp_w", tdp.group("w"), "W", raw)

    link = _text(data.get("accelerator_interconnect"))
    bw = _NVLINK_BW.search(link)
    if bw and "nvlink" in link.lower():
        out.add(name, "interconnect_bw_gbps", bw.group("n"), "GB/s", raw)

    nodes = number(_text(data.get("number_of_nodes"))) or 1.0
    out.add(name, "accelerators_per_system", per_node * nodes, "count", raw)
    return result


SOURCE = Source(
    name=NAME, kind="specs", default_url=DEFAULT_URL, parse=parse, parts=_parts,
    policy=FetchPolicy(min_interval_s=1.0, headers={"Accept": "application/vnd.github+json"}),
    description="MLPerf Inference system descriptions (MLCommons results repositories)",
)
