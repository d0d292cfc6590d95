"""inferencex: InferenceX serving sweeps (an InferenceX-app summary, vLLM benchmark_serving
results), one ServingSweepPoint per concurrency.

Checked against the 6 recorded files in ../shared/data/throughput/inferencemax_inferencex (read
in place; its README's last section describes them): the GLM-4.7 sweep on 8x Gaudi 3 and the
Qwen3.5 sweep (whose hardware the files do not state: catalog/inferencex_hardware.csv cites it).
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest
import requests

from gpucost.catalog import CATALOG_DIR
from gpucost.catalog.records import EmptyPayloadError, ParseError, Payload
from gpucost.catalog.sources import inferencex as m
from gpucost.catalog.sources.base import FetchContext

GLM = "SemiAnalysisAI_InferenceX-app/glm-4.7/results/glm47_gaudi3_summary.json"
QWEN = ("SemiAnalysisAI_InferenceX/experimental/token_position_decode_slo/qwen3.5/results/"
        "qwen35_vllm_tp8_isl1024_osl128_conc{}.json")
QWEN_PATH = QWEN.format(4).replace("SemiAnalysisAI_InferenceX/", "", 1)


@pytest.fixture(scope="module")
def ix_dir(shared_data: Path) -> Path:
    return shared_data / "throughput" / "inferencemax_inferencex"


def _load(path: Path):  # type: ignore[no-untyped-def]
    """Parse a file as `gpucost ingest` gives it: its name, its bytes, its path as the URL."""
    return m.parse(Payload(name=path.name, content=path.read_bytes(), url=str(path)))


def _at(points, concurrency: float):  # type: ignore[no-untyped-def]
    [point] = [p for p in points if p.concurrency == concurrency]
    return point


def test_every_recorded_file_parses(ix_dir: Path) -> None:
    files = sorted({p for pattern in m.SOURCE.tree_files for p in ix_dir.glob(pattern)})
    assert len(files) == 6
    results = [_load(p) for p in files]
    points = [p for r in results for p in r.serving_points]
    assert len(points) == 8 + 5 and not [x for r in results for x in r.rejects]
    assert {p.sweep for p in points} == {
        "SemiAnalysisAI/InferenceX-app/glm-4.7/results/glm47_gaudi3_summary",
        "SemiAnalysisAI/InferenceX/experimental/token_position_decode_slo/qwen3.5/results/"
        "qwen35_vllm_tp8_isl1024_osl128"}
    # one stream per file (its repository path), each dated by the date the file states
    assert len({r.stream for r in results}) == 6
    assert all(r.observed_at is not None and r.observed_at.tzinfo for r in results)


def test_glm_gaudi3_sweep_states_per_gpu_and_interactivity(ix_dir: Path) -> None:
    """The file's own figures: concurrency 1 gives 2.32 output tok/s per GPU at 18.62 tok/s
    per user, concurrency 64 gives 61.72 at 8.08 (README: interactivity ~ 1000 / mean TPOT)."""
    result = _load(ix_dir / GLM)
    points = result.serving_points
    assert [p.concurrency for p in points] == [1, 2, 4, 8, 16, 32, 64, 128]
    assert str(result.observed_at) == "2026-03-14 00:00:00+00:00"
    c1, c64 = _at(points, 1), _at(points, 64)
    assert (c1.output_tokens_per_second_per_gpu_stated, c1.tokens_per_second_per_user) == \
        (2.32, 18.62)
    assert (c64.output_tokens_per_second_per_gpu_stated, c64.tokens_per_second_per_user) == \
        (61.72, 8.08)
    assert c1.interactivity_basis == "interactivity"
    # what the file says about the server: 8x Gaudi 3 HL-325L (the count read apart), whole
    # server throughput, and the per-GPU figure = whole / 8 (README's internal check)
    assert (c1.hardware_raw, c1.gpus, c1.model) == ("Intel Gaudi 3 HL-325L", 8, "zai-org/GLM-4.7")
    assert (c1.framework, c1.precision, c1.input_len, c1.output_len) == \
        ("vllm-gaudi 0.17.1rc1", "BF16", 1024, 1024)
    assert (c64.output_tokens_per_second, c64.total_tokens_per_second) == (493.75, 1198.16)
    assert c64.output_tokens_per_second / 8 == pytest.approx(61.72, abs=0.01)
    assert (c64.median_ttft_ms, c64.p99_tpot_ms, c64.requests_completed) == (496.04, 163.06, 640)
    assert 1000 / c64.mean_tpot_ms == pytest.approx(c64.tokens_per_second_per_user, abs=0.01)


def test_qwen_sweep_per_user_speed_is_one_over_median_tpot(ix_dir: Path) -> None:
    """vLLM states latencies in seconds and no per-user speed: tokens/s per user =
    1 / median_tpot, at concurrency 4 (0.0323 s: 30.95 tok/s) and 64 (0.1008 s: 9.92 tok/s)."""
    points = {}
    for c in (4, 8, 16, 32, 64):
        path = ix_dir / QWEN.format(c)
        result = _load(path)
        [points[c]] = result.serving_points
        raw = json.loads(path.read_bytes())
        assert points[c].tokens_per_second_per_user == pytest.approx(1 / raw["median_tpot"])
        assert points[c].median_tpot_ms == pytest.approx(raw["median_tpot"] * 1000)
        assert points[c].output_tokens_per_second == raw["output_throughput"]
    assert str(_load(ix_dir / QWEN.format(8)).observed_at) == "2026-02-16 12:51:48+00:00"
    c4, c64 = points[4], points[64]
    assert c4.tokens_per_second_per_user == pytest.approx(30.955, abs=0.001)
    assert c64.tokens_per_second_per_user == pytest.approx(9.9228, abs=0.001)
    assert c4.interactivity_basis == "1 / median_tpot"
    assert c4.p99_ttft_ms == pytest.approx(7589.12, abs=0.01)
    assert (c4.median_ttft_ms, c4.mean_ttft_ms, c4.mean_tpot_ms) == \
        (pytest.approx(4567.77, abs=0.01), None, None)  # vLLM printed no means here
    # the hardware is not in the file: nothing is guessed here
    assert (c4.hardware_raw, c4.gpus, c4.output_tokens_per_second_per_gpu_stated) == \
        (None, None, None)
    assert (c4.model, c4.framework, c4.input_len, c4.output_len, c4.requests_completed) == \
        ("Qwen/Qwen3.5-397B-A17B", "vllm", 1024, 128, 40)
    # total tokens/s = input + output throughput (40960 + 5120 tokens in 75.696 s)
    assert c4.total_tokens_per_second == pytest.approx((40960 + 5120) / 75.69601165596396)


def test_qwen_hardware_comes_from_a_cited_table() -> None:
    """catalog/inferencex_hardware.csv: the qwen3.5 folder's serve script (#SBATCH -p h200,
    --gres=gpu:8) at a pinned commit; the name maps to H200 SXM by an inferencex alias."""
    with (CATALOG_DIR / "inferencex_hardware.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    [row] = [r for r in rows if QWEN_PATH.startswith(r["path_prefix"])]
    assert (row["accelerator_name"], row["gpus"]) == ("NVIDIA H200", "8")
    assert row["source_url"].startswith("https://github.com/SemiAnalysisAI/InferenceX/blob/")
    assert row["source_url"].endswith("/experimental/token_position_decode_slo/qwen3.5/"
                                      "serve_qwen35_tp8_sbatch.sh")
    with (CATALOG_DIR / "aliases.csv").open(newline="", encoding="utf-8") as fh:
        aliases = {(r["provider"], r["alias"]): r["accelerator_id"] for r in csv.DictReader(fh)}
    assert aliases[("inferencex", "NVIDIA H200")] == "nvidia-h200-sxm-141gb"
    assert aliases[("inferencex", "Intel Gaudi 3 HL-325L")] == "intel-gaudi3-128gb"


# ---- hostile input: named errors, rejects with their reason ----------------------------------

def _qwen(doc: object, conc: int = 4) -> Payload:
    body = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    return Payload(f"conc{conc}.json", body, url=QWEN.format(conc))


def _summary(results: object, **meta: object) -> Payload:
    doc = {"metadata": {"model": "m", "hardware": "8x Intel Gaudi 3 HL-325L",
                        "date": "2026-03-14", **meta}, "results": results}
    return Payload("summary.json", json.dumps(doc).encode(), url=GLM)


GOOD_POINT = {"concurrency": 1, "num_gpus": 8, "output_throughput": 18.5,
              "output_tput_per_gpu": 2.3, "interactivity": 18.6}
GOOD_VLLM = {"date": "20260216-125027", "model_id": "q", "max_concurrency": 4, "completed": 40,
             "output_throughput": 67.6, "median_tpot": 0.032}


@pytest.mark.parametrize("body", [b"", b"{", b"\xff\xfe{}", b"[" * 100_000, b"<html></html>",
                                  b"[]", b"{}", b'{"data": {"prices": []}}'])
def test_another_layout_or_undecodable_json_is_a_parse_error(body: bytes) -> None:
    with pytest.raises(ParseError):
        m.parse(_qwen(body))
    with pytest.raises(ParseError):
        m.parse(Payload("summary.json", body, url=GLM))


def test_a_file_away_from_its_repository_path_is_refused() -> None:
    with pytest.raises(ParseError, match="repository path"):
        m.parse(Payload("conc4.json", json.dumps(GOOD_VLLM).encode(), url="/tmp/conc4.json"))


def test_a_well_formed_file_without_a_point_is_empty() -> None:
    with pytest.raises(EmptyPayloadError, match="no result"):
        m.parse(_summary([]))
    with pytest.raises(EmptyPayloadError, match="completed no request"):
        m.parse(_qwen({**GOOD_VLLM, "completed": 0, "output_throughput": 0.0}))


def test_bad_points_are_rejected_by_name_never_dropped() -> None:
    bad = [{**GOOD_POINT, "concurrency": 2, "output_throughput": 0},
           {**GOOD_POINT, "concurrency": 4, "output_throughput": -3.0},
           {**GOOD_POINT, "concurrency": 8, "output_throughput": "n/a"},
           {**GOOD_POINT, "concurrency": None},
           {**GOOD_POINT},  # concurrency 1 again
           "not a point"]
    body = json.dumps({"metadata": {"model": "m", "date": "2026-03-14"},
                       "results": [GOOD_POINT, *bad]}).encode()
    body = body.replace(b'"n/a"', b"NaN")  # a non-finite figure, as Python's json writes it
    result = m.parse(Payload("summary.json", body, url=GLM))
    assert [p.concurrency for p in result.serving_points] == [1]
    assert [r.reason for r in result.rejects] == [
        "bad_throughput", "bad_throughput", "bad_throughput", "no_concurrency",
        "duplicate_point", "not_a_point"]
    assert len(result.rejects) + len(result.serving_points) == 1 + len(bad)
    # a vLLM result whose throughput is not finite: a reject, no row
    result = m.parse(_qwen(json.dumps({**GOOD_VLLM, "output_throughput": math.inf})
                           .replace("Infinity", "1e999").encode()))
    assert (result.serving_points, [r.reason for r in result.rejects]) == ([], ["bad_throughput"])


def test_a_vllm_file_must_agree_with_its_name_and_date() -> None:
    with pytest.raises(ParseError, match="file name says concurrency 8"):
        m.parse(_qwen(GOOD_VLLM, conc=8))
    with pytest.raises(ParseError, match="is not a date"):
        m.parse(_qwen({**GOOD_VLLM, "date": "yesterday"}))
    with pytest.raises(ParseError, match="model_id"):
        m.parse(_qwen({**GOOD_VLLM, "max_concurrency": 0}))
    [p] = m.parse(_qwen({**GOOD_VLLM, "median_tpot": None})).serving_points
    assert (p.tokens_per_second_per_user, p.interactivity_basis) == (None, "not stated")


def test_live_parts_read_both_repositories(monkeypatch: pytest.MonkeyPatch) -> None:
    """Five Qwen files from InferenceX, the GLM summary from InferenceX-app on the same raw
    host (unless GPUCOST_SOURCE_URL_INFERENCEX_APP says otherwise); each part keyed by the
    stream its file parses to, and named by its repository path (so it parses as recorded)."""
    monkeypatch.setenv("GPUCOST_SOURCE_URL_INFERENCEX", "http://127.0.0.1:9/raw/main")
    monkeypatch.delenv("GPUCOST_SOURCE_URL_INFERENCEX_APP", raising=False)
    parts = list(m.SOURCE.parts(FetchContext(m.SOURCE, requests.Session())))  # type: ignore[misc]
    assert len(parts) == 6
    assert parts[0].url == f"http://127.0.0.1:9/raw/main/{m.QWEN_FILES[0]}"
    assert parts[-1].url == ("http://127.0.0.1:9/SemiAnalysisAI/InferenceX-app/main/"
                             f"{m.GLM_FILE}")
    result = m.parse(Payload(parts[-1].name, json.dumps(
        {"metadata": {"model": "m"}, "results": [GOOD_POINT]}).encode(), url=parts[-1].url))
    assert result.stream == parts[-1].key
    monkeypatch.setenv("GPUCOST_SOURCE_URL_INFERENCEX_APP", "http://127.0.0.1:9/app")
    parts = list(m.SOURCE.parts(FetchContext(m.SOURCE, requests.Session())))  # type: ignore[misc]
    assert parts[-1].url == f"http://127.0.0.1:9/app/{m.GLM_FILE}"


def test_the_recorded_feed_finds_the_six_files(shared_data: Path) -> None:
    from gpucost.flows.recorded import FEEDS, files_of

    [feed] = [f for f in FEEDS if f.source == "inferencex"]
    assert len(files_of(feed, shared_data)) == 6
    # and the MLPerf results feed over the same folder does not take them
    [results] = [f for f in FEEDS if f.source == "mlperf_results"]
    assert not [p for p in files_of(results, shared_data) if "inferencemax" in str(p)]
