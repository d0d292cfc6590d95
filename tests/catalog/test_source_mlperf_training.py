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
    # README.md: 247 data files (246 run logs, scaling and system files + Nebius summary.json),
    # 206 runs; README-older-rounds.md: 113 more (94 run logs, 4 scaling, 15 systems; its
    # summary.csv is no tree file)
    assert len(files) == 246 + 113 and len(runs) == 206 + 94
    assert sum(len(res.training_scaling) for res in results) == 16 + 4
    assert sum(len(res.systems) for res in results) == 24 + 15
    assert all(r.tokens and r.tokens > 0 for r in runs)
    # older-rounds trap 1: one aborted run inside a valid result, loaded with its status
    assert [(r.round, r.system, r.run) for r in runs if r.status != "success"] == [
        ("v2.1", "dgxh100_preview", "result_3")]
    assert not [x for res in results for x in res.rejects]


def test_older_rounds_bert_samples_are_read_where_each_stack_logs_them(training_dir: Path
                                                                       ) -> None:
    """README-older-rounds.md, bert keys and trap 7, worked by hand from the logs:
    * v3.0 Dell H100 result_0: 315,991 ms, last eval epoch_num 2,397,387 samples -> 948.4
      samples/s per GPU (worked example 1; the log's own tracked_stats says 7586.898 for 8);
    * v1.0 NVIDIA logs put epoch_num 1 on every eval: train_samples after the last eval,
      3,000,256 (result_0 of the 8-GPU system);
    * the v1.0 TPU log's train_samples of 3,505,152 right after run_start is a cap: its last
      eval's epoch_num, 2,969,918, is what it trained."""
    root = training_dir
    [dell] = _load(root / "mlperf_training_v3.0/Dell/results/XE9680x8H100-SXM-80GB/bert/"
                   "result_0.txt").training_runs
    seconds = (dell.run_stop - dell.run_start).total_seconds()
    assert seconds == pytest.approx(315.991)
    assert dell.samples == 2_397_387 and dell.tokens == 2_397_387 * 512
    assert dell.samples / seconds / 8 == pytest.approx(948.4, abs=0.05)
    [a100] = _load(root / "mlperf_training_v1.0/NVIDIA/results/dgxa100_ngc21.05_pytorch/bert/"
                   "result_0.txt").training_runs
    assert a100.samples == 3_000_256 and a100.tokens_basis.startswith("train_samples")
    [tpu] = _load(root / "mlperf_training_v1.0/Google/results/tpu-v4-128-TF/bert/"
                  "result_0.txt").training_runs
    assert tpu.samples == 2_969_918 and tpu.seq_len == 512
    assert (tpu.run_stop - tpu.run_start).total_seconds() == pytest.approx(238.259)


def test_older_rounds_aborted_run_and_tpu_generation(training_dir: Path) -> None:
    """Older-rounds trap 1: v2.1 dgxh100_preview result_3 stops 'aborted' after 422,011 ms
    (last eval 0.71973 < 0.720); trap 3: the v1.0 TPU system JSON names the part just 'TPU',
    its generation is in system_name (tpu-v4-128 = 4 chips x 16 hosts = 64 chips)."""
    [run] = _load(training_dir / "mlperf_training_v2.1/NVIDIA/results/dgxh100_preview/bert/"
                  "result_3.txt").training_runs
    assert run.status == "aborted"
    assert (run.run_stop - run.run_start).total_seconds() == pytest.approx(422.011)
    [system] = _load(training_dir / "mlperf_training_v1.0/Google/systems/tpu-v4-128-TF.json"
                     ).systems
    assert system.accelerator_name_raw == "TPU v4"
    assert system.accelerators_per_node * system.number_of_nodes == 64
    assert system.availability == "preview"


def test_older_rounds_gpt3_tokens_per_chip(training_dir: Path) -> None:
    """Worked example 3: 4096 x TPU v5e (v3.1) result_0, 2,668,313 ms for 1,207,959,552
    tokens (288 steps x 2048 x 2048) = 110.5 tokens/s per chip."""
    root = training_dir / "mlperf_training_v3.1/Google"
    [run] = _load(root / "results/cloud-tpu-v5e-4096-PAX/gpt3/result_0.txt").training_runs
    [system] = _load(root / "systems/cloud-tpu-v5e-4096-PAX.json").systems
    n = system.accelerators_per_node * system.number_of_nodes
    seconds = (run.run_stop - run.run_start).total_seconds()
    assert (n, run.tokens, seconds) == (4096, 1_207_959_552, pytest.approx(2668.313))
    assert run.tokens / seconds / n == pytest.approx(110.5, abs=0.05)


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
