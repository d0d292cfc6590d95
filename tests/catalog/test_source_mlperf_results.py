"""mlperf_results: MLPerf Inference LoadGen summaries and system descriptions.

Checked against the recorded files in ../shared/data/throughput (used in place) and against
MLCommons' own results tables (summary_results.json of v5.1 and v6.0); each trap numbered
in that folder's README has a test here (the trap number is in the test name's docstring).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpucost.catalog.records import EmptyPayloadError, ParseError, Payload
from gpucost.catalog.sources import mlperf_results as m

FIXTURE = (Path(__file__).resolve().parents[1] / "fixtures" / "mlperf_results"
           / "inference_results_v5.1" / "closed" / "Fixture")


@pytest.fixture(scope="module")
def throughput_dir(shared_data: Path) -> Path:
    return shared_data / "throughput"


def _load(path: Path):  # type: ignore[no-untyped-def]
    """Parse a file as `gpucost ingest` gives it: its name, its bytes, its path as the URL."""
    return m.parse(Payload(name=path.name, content=path.read_bytes(), url=str(path)))


def _summary(text: str, path: str) -> Payload:
    return Payload(name="mlperf_log_summary.txt", content=text.encode(), url=path)


def _tokens(result) -> float:  # type: ignore[no-untyped-def]
    return next(t.value for t in result.throughput if t.metric == "tokens_per_second")


@pytest.fixture(scope="module")
def parsed(throughput_dir: Path) -> dict[tuple[str, str, str, str, str, str], float]:
    """Every recorded summary -> tokens/s (or samples/s), keyed like MLCommons' tables."""
    out = {}
    for path in sorted(throughput_dir.rglob("mlperf_log_summary.txt")):
        result = _load(path)
        for t in result.throughput:
            bench = t.benchmark + (f"-{t.accuracy_target}" if t.accuracy_target else "")
            out[(t.round, t.submitter, t.system, bench, t.scenario, t.metric)] = t.value
    return out


def test_every_recorded_summary_and_system_parses(throughput_dir: Path) -> None:
    summaries = sorted(throughput_dir.rglob("mlperf_log_summary.txt"))
    systems = sorted(throughput_dir.rglob("systems/*.json"))
    assert (len(summaries), len(systems)) == (104, 38)  # README: 104 summaries, 38 systems
    results = [_load(p) for p in summaries]
    assert all(r.throughput and all(t.valid for t in r.throughput) for r in results)
    assert sum(any(t.metric == "tokens_per_second" for t in r.throughput)
               for r in results) == 103  # all but the TPU v5e GPT-J file (trap 7)
    described = [_load(p) for p in systems]
    assert all(len(r.systems) == 1 and not r.rejects for r in described)
    # 104 distinct streams: one per summary path (trap 13: keyed by submitter too)
    assert len({r.stream for r in results}) == 104


@pytest.mark.parametrize("round_", ["5.1", "6.0"])
def test_tokens_per_second_equal_the_mlcommons_results_table(
        round_: str, throughput_dir: Path,
        parsed: dict[tuple[str, str, str, str, str, str], float]) -> None:
    """Every v5.1 / v6.0 row of the official table that we hold a summary for matches."""
    table = json.loads((throughput_dir / f"mlperf_inference_v{round_}"
                        / "summary_results.json").read_text(encoding="utf-8"))
    checked = 0
    for row in table:
        if row.get("Performance_Units") != "Tokens/s":
            continue
        model, accuracy, interactive = m.benchmark_key(row["Model"])
        scenario = "Interactive" if interactive else row["Scenario"]
        bench = model + (f"-{accuracy}" if accuracy else "")
        key = (f"v{round_}", row["Submitter"], row["Platform"], bench, scenario,
               "tokens_per_second")
        if key not in parsed:
            continue
        checked += 1
        assert parsed[key] == pytest.approx(row["Performance_Result"], rel=1e-5), key
    # README: the 79 v5.1/v6.0 summaries all appear in the official tables
    assert checked == {"5.1": 43, "6.0": 36}[round_]


def test_headline_figures_read_by_hand(parsed) -> None:  # type: ignore[no-untyped-def]
    """README table rows, read by hand from the files."""
    assert parsed[("v5.1", "NVIDIA", "B200-SXM-180GBx8_TRT", "llama2-70b-99", "Offline",
                   "tokens_per_second")] == 101527
    assert parsed[("v5.1", "NVIDIA", "B200-SXM-180GBx8_TRT", "llama2-70b-99", "Server",
                   "tokens_per_second")] == 99123.04


def test_interactive_runs_print_scenario_server(parsed) -> None:  # type: ignore[no-untyped-def]
    """Traps 1 and 3 (v5.1+): an Interactive folder whose file says Scenario : Server."""
    assert parsed[("v5.1", "NVIDIA", "B200-SXM-180GBx8_TRT", "llama2-70b-99", "Interactive",
                   "tokens_per_second")] == 59545.45
    text = ("MLPerf Results Summary\nScenario : Server\nCompleted tokens per second: 5.0\n"
            "Result is : VALID\n")
    v50 = m.parse(_summary(text, "inference_results_v5.0/closed/X/results/S/"
                                 "llama2-70b-interactive-99/Server/performance/run_1/"
                                 "mlperf_log_summary.txt"))
    assert [(t.benchmark, t.accuracy_target, t.scenario) for t in v50.throughput] == [
        ("llama2-70b", "99", "Interactive")]


def test_accuracy_targets_are_separate_benchmarks() -> None:
    """Trap 2: -99 and -99.9 keep apart, and the same bytes under both paths load twice."""
    text = "MLPerf Results Summary\nScenario : Offline\nTokens per second: 10\nResult is : VALID\n"
    paths = [f"inference_results_v5.0/closed/NVIDIA/results/S/llama2-70b-{a}/Offline/"
             "performance/run_1/mlperf_log_summary.txt" for a in ("99", "99.9")]
    a, b = (m.parse(_summary(text, p)) for p in paths)
    assert (a.throughput[0].accuracy_target, b.throughput[0].accuracy_target) == ("99", "99.9")
    assert a.stream != b.stream


def test_folder_spellings_and_scientific_notation(parsed) -> None:  # type: ignore[no-untyped-def]
    """Traps 4 and 5: llama3_1-405b is llama3.1-405b, lowercase scenario folders, 1.04298e+06."""
    assert m.benchmark_key("llama3_1-405b") == ("llama3.1-405b", "", False)
    assert parsed[("v6.0", "NVIDIA", "GB300-NVL72_GB300-288GB_aarch64x72_TRT", "gpt-oss-120b",
                   "Offline", "tokens_per_second")] == 1.04298e6
    assert parsed[("v4.0", "Google", "tpu_v5e_x4", "gptj-99", "Offline",
                   "samples_per_second")] == 10.1502  # trap 7: samples only, folder 'offline'
    assert ("v4.0", "Google", "tpu_v5e_x4", "gptj-99", "Offline",
            "tokens_per_second") not in parsed


def test_v40_server_tokens_from_additional_stats(parsed) -> None:  # type: ignore[no-untyped-def]
    """Trap 6: the Gaudi 2 Server file has the tokens only under Additional Stats."""
    assert parsed[("v4.0", "Intel-HabanaLabs", "HLS-Gaudi2-PT", "llama2-70b-99.9", "Server",
                   "tokens_per_second")] == 6287.47


def test_counts_come_from_the_system_description(throughput_dir: Path) -> None:
    """Traps 8-12: nodes multiply; the folder name may lie; strings for counts."""
    def system(rnd: str, sub: str, name: str):  # type: ignore[no-untyped-def]
        path = throughput_dir / f"mlperf_inference_{rnd}" / "closed" / sub / "systems" / name
        (d,) = _load(path).systems
        return d.accelerators_per_node * d.number_of_nodes, d

    assert system("v6.0", "NVIDIA", "GB300-NVL72_GB300-288GB_aarch64x72_TRT.json")[0] == 72
    assert system("v5.1", "NVIDIA", "GB200-NVL72_GB200-186GB_aarch64x4_TRT.json")[0] == 4
    cisco_count, cisco = system("v5.1", "Cisco", "HGX-H100_H100-SXM-80GBx16_TRT.json")
    assert (cisco.accelerators_per_node, cisco.number_of_nodes, cisco_count) == (8, 2, 16)
    count, redhat = system("v5.1", "RedHat", "XE8640_4xH100_vLLM.json")
    assert count == 1  # trap 10: the folder says 4xH100
    assert redhat.framework.startswith("vLLM")
    gaudi = system("v4.0", "Intel-HabanaLabs", "HLS-Gaudi2-PT.json")[1]
    assert gaudi.accelerator_name_raw == "Intel® Gaudi® 2 AI Accelerator"  # trap 12


def test_same_system_folder_under_two_submitters(throughput_dir: Path) -> None:
    """Trap 13: B200-SXM-180GBx8_TRT of NVIDIA, Lambda and Oracle are three systems."""
    found = {(d.submitter, d.system) for p in throughput_dir.rglob(
        "mlperf_inference_v5.1/closed/*/systems/B200-SXM-180GBx8_TRT.json")
        for d in _load(p).systems}
    assert {s for s, _ in found} >= {"NVIDIA", "Lambda", "Oracle"}


def test_availability_division_and_validity_are_kept(throughput_dir: Path) -> None:
    """Traps 14, 15 and 17: preview and open are kept (never silently mixed); INVALID loads
    with valid false and a reject saying so."""
    (b200,) = _load(throughput_dir / "mlperf_inference_v4.1/closed/NVIDIA/systems/"
                    "B200-SXM-180GBx1_TRT.json").systems
    assert b200.availability == "preview"
    opened = next(p for p in throughput_dir.rglob("mlperf_log_summary.txt")
                  if "/open/" in str(p))
    assert {t.division for t in _load(opened).throughput} == {"open"}
    invalid = m.parse(_summary(
        "MLPerf Results Summary\nScenario : Offline\nTokens per second: 10\nResult is : INVALID\n",
        "inference_results_v5.1/closed/X/results/S/llama2-70b-99/Offline/performance/run_1/"
        "mlperf_log_summary.txt"))
    assert [t.valid for t in invalid.throughput] == [False]
    assert [r.reason for r in invalid.rejects] == ["invalid_result"]


def test_bad_payloads_are_named_errors() -> None:
    good_path = ("inference_results_v5.1/closed/X/results/S/llama2-70b-99/Offline/performance/"
                 "run_1/mlperf_log_summary.txt")
    with pytest.raises(ParseError, match="cannot tell the round"):
        m.parse(Payload(name="mlperf_log_summary.txt", content=b"MLPerf Results Summary"))
    with pytest.raises(ParseError, match="not a LoadGen summary"):
        m.parse(_summary("<html>moved</html>", good_path))
    with pytest.raises(EmptyPayloadError):
        m.parse(_summary("MLPerf Results Summary\nScenario : Offline\nResult is : VALID\n",
                         good_path))
    with pytest.raises(ParseError, match="scenario folder"):
        m.parse(_summary("MLPerf Results Summary\nScenario : Server\n"
                         "Completed tokens per second: 5\nResult is : VALID\n", good_path))


def test_fixture_walk_parses_to_rows() -> None:
    (system,) = _load(FIXTURE / "systems" / "TestBox-H100x8_TRT.json").systems
    assert system.accelerators_per_node == 8.0  # "8" as a string in the file
    offline = _load(FIXTURE / "results/TestBox-H100x8_TRT/llama2-70b-99/Offline/performance/"
                              "run_1/mlperf_log_summary.txt")
    assert _tokens(offline) == 24000.0 and offline.stream == \
        "v5.1/closed/Fixture/TestBox-H100x8_TRT/llama2-70b-99/Offline"


class _Ctx:
    """The part of FetchContext the live walk uses, serving one recorded results table."""

    def __init__(self, table: Path) -> None:
        self.table = table

    def url(self) -> str:
        return "https://example.test/inference_results_v5.1/main"

    def get(self, url: str, name: str, ext: str) -> Payload:
        assert url == f"{self.url()}/summary_results.json"
        return Payload(name=name, content=self.table.read_bytes(), url=url, ext=ext)

    def is_unreachable(self, url: str) -> bool:
        return False


@pytest.mark.parametrize("round_", ["5.1", "6.0"])
def test_live_walk_lists_the_llm_results_of_a_round(round_: str, throughput_dir: Path) -> None:
    """The live walk reads the round's own table: every closed LLM result (Tokens/s) gives
    its summary's path (v5.1 locations stop at the scenario, v6.0's start with './' and end
    in performance/run_1), each system's description once, at most MAX_FILES files."""
    table = throughput_dir / f"mlperf_inference_v{round_}" / "summary_results.json"
    parts = list(m._parts(_Ctx(table)))  # type: ignore[arg-type]
    rows = [r for r in json.loads(table.read_text(encoding="utf-8"))
            if r.get("Performance_Units") == "Tokens/s" and r.get("Category") == "closed"]
    assert 0 < len(parts) <= m.MAX_FILES
    summaries = [p for p in parts if p.name.endswith("mlperf_log_summary.txt")]
    systems = [p for p in parts if p.name.endswith(".json")]
    assert len({p.url for p in parts}) == len(parts)  # nothing fetched twice
    if len(parts) < m.MAX_FILES:
        assert len(summaries) == len(rows)
    assert all(p.name.startswith(f"inference_results_v{round_}/closed/")
               and "/performance/run_1/" in p.name and "./" not in p.name for p in summaries)
    assert all("/systems/" in p.name for p in systems)
    first = summaries[0]
    parsed_path = m._SUMMARY_PATH.search(first.name)
    assert parsed_path and parsed_path.group("round") == round_
