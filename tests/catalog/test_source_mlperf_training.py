"""mlperf_training: MLPerf Training run logs (MLLOG), scaling factors and system descriptions.

Checked against the recorded files in ../shared/data/training (used in place): its README's
worked examples (per-run time and tokens/s) and the traps it numbers. The score itself
(olympic mean x scaling factor) is SQL's (int_training_results) and is tested on the loaded
warehouse in tests/system/test_training_measured.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpucost.catalog.records import ParseError, Payload
from gpucost.catalog.sources import mlperf_training as m

V41 = "mlperf_training_v4.1/NVIDIA/results"


@pytest.fixture(scope="module")
def training_dir(shared_data: Path) -> Path:
    return shared_data / "training"


def _load(path: Path):  # type: ignore[no-untyped-def]
    """Parse a file as `gpucost ingest` gives it: its name, its bytes, its path as the URL."""
    return m.parse(Payload(name=path.name, content=path.read_bytes(), url=str(path)))


def _log(lines: list[dict], path: str = "training_results_v5.1/X/results/sys/llama31_8b/"
         "result_0.txt") -> Payload:
    text = "noise line\n" + "\n".join(":::MLLOG " + json.dumps(e) for e in lines) + "\n"
    return Payload(name="result_0.txt", content=text.encode(), url=path)


def _event(key: str, t: int, value=None, **meta) -> dict:  # type: ignore[no-untyped-def]
    return {"namespace": "", "time_ms": t, "event_type": "POINT_IN_TIME", "key": key,
            "value": value, "metadata": meta}


def test_every_recorded_file_parses(training_dir: Path) -> None:
    files = sorted({p for pattern in m.SOURCE.tree_files for p in training_dir.glob(pattern)})
    results = [_load(p) for p in files]
    runs = [r for res in results for r in res.training_runs]
    assert len(files) == 246 and len(runs) == 206
    assert sum(len(res.training_scaling) for res in results) == 16
    assert sum(len(res.systems) for res in results) == 24
    assert all(r.status == "success" and r.tokens and r.tokens > 0 for r in runs)
    assert not [x for res in results for x in res.rejects]


def test_worked_example_gpt3_counts_tokens_not_sequences(training_dir: Path) -> None:
    """README example 1 and trap 5: gpt3's epoch_num is tokens, 1,258,291,200 in 6,026.334 s."""
    [run] = _load(training_dir / V41 / "eos_n32_ngc24.09_nemo/gpt3/result_0.txt").training_runs
    seconds = (run.run_stop - run.run_start).total_seconds()
    assert seconds == pytest.approx(6026.334)
    assert run.tokens == 1_258_291_200 and run.tokens_basis.startswith("eval_accuracy")
    assert run.tokens / seconds / 256 == pytest.approx(815.6, abs=0.1)


def test_worked_example_lora_tokens_are_samples_times_8192(training_dir: Path) -> None:
    """README example 2 and trap 6: LoRA logs no sequence length (fixed to 8192 by the rules),
    and train_samples (3901) is the dataset, not what was trained: samples_count 3456."""
    result = _load(training_dir / V41 / "eos_ngc24.09_nemo/llama2_70b_lora/result_0.txt")
    [run] = result.training_runs
    assert (run.samples, run.seq_len, run.tokens) == (3456, 8192, 28_311_552)
    seconds = (run.run_stop - run.run_start).total_seconds()
    assert seconds / 60 == pytest.approx(30.25, abs=0.01)
    assert run.tokens / seconds / 8 == pytest.approx(1950, abs=1)
    assert result.observed_at == run.run_stop  # a run log is dated by its own run_stop


def test_worked_example_gb300_counts_gpus_from_the_system_json(training_dir: Path) -> None:
    """README example 3 and traps 3-4: the log says '2xNVIDIA GB200'; the system JSON says
    4 GB300 per node x 2 nodes."""
    root = training_dir / "mlperf_training_v5.1/NVIDIA"
    [run] = _load(root / "results/theia_ngpu8_ngc25.09_nemo/llama31_8b/result_0.txt"
                  ).training_runs
    [system] = _load(root / "systems/theia_ngpu8_ngc25.09_nemo.json").systems
    assert system.accelerator_name_raw == "NVIDIA Blackwell Ultra GPU (GB300)"
    n = system.accelerators_per_node * system.number_of_nodes
    seconds = (run.run_stop - run.run_start).total_seconds()
    assert (n, run.samples) == (8, 184320)
    assert run.tokens / seconds / n == pytest.approx(45_671, abs=1)


def test_file_names_vary_and_the_stem_is_the_run(training_dir: Path) -> None:
    """Trap 11: result_0..9, result_1..10, result_01..10."""
    stems = {p.stem for p in training_dir.glob("mlperf_training_v5.1/Lenovo/results/*/*/*.txt")}
    assert {"result_01", "result_10"} <= stems
    [run] = _load(next(training_dir.glob("mlperf_training_v5.1/Lenovo/results/"
                                         "SR680aV3-8xB200_SXM_180GB/llama2_70b_lora/"
                                         "result_01.txt"))).training_runs
    assert run.run == "result_01"


def test_scaling_factor_is_read_and_bounded() -> None:
    path = "training_results_v5.0/N/results/s/llama31_405b/scaling.json"
    [f] = m.parse(Payload("scaling.json", b'{"scaling_factor": 1.1666666666666667}',
                          url=path)).training_scaling
    assert f.scaling_factor == pytest.approx(7 / 6) and f.benchmark == "llama31_405b"
    for bad in (b'{"scaling_factor": 0}', b'{"scaling_factor": 40}', b"{", b"[]"):
        with pytest.raises(ParseError):
            m.parse(Payload("scaling.json", bad, url=path))


def test_a_log_without_its_timed_interval_is_refused_by_name() -> None:
    with pytest.raises(ParseError, match="without its timed interval"):
        m.parse(_log([_event("run_start", 1000)]))
    with pytest.raises(ParseError, match="not after run_start"):
        m.parse(_log([_event("run_start", 5000), _event("run_stop", 4000, status="success")]))
    with pytest.raises(ParseError, match="not an MLPerf run log"):
        m.parse(Payload("result_0.txt", b"just stdout", url="training_results_v5.1/X/results"
                        "/s/gpt3/result_0.txt"))
    with pytest.raises(ParseError, match="cannot tell the round"):
        m.parse(Payload("result_0.txt", b"x", url="somewhere/result_0.txt"))


def test_an_aborted_run_and_bad_lines_load_with_their_reason() -> None:
    result = m.parse(_log([_event("max_sequence_length", 1, 8192),
                           _event("run_start", 1000), "not json",  # type: ignore[list-item]
                           _event("run_stop", 61_000, status="aborted")]))
    [run] = result.training_runs
    assert (run.status, run.tokens) == ("aborted", None)
    assert {r.reason for r in result.rejects} == {"no_tokens", "undecodable_line"}


def test_live_fetch_lists_the_llm_results_and_their_systems_only() -> None:
    tree = ["README.md", "NVIDIA/systems/a.json", "NVIDIA/systems/b.json",
            "NVIDIA/results/a/llama31_8b/result_0.txt", "NVIDIA/results/a/llama31_8b/scaling.json",
            "NVIDIA/results/b/stable_diffusion/result_0.txt",
            "NVIDIA/benchmarks/llama31_8b/implementations/x/config.sh"]
    assert m.wanted(tree) == ["NVIDIA/systems/a.json", "NVIDIA/results/a/llama31_8b/scaling.json",
                              "NVIDIA/results/a/llama31_8b/result_0.txt"]
