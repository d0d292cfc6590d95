"""scripts/spec_sources.py: researched provenance records are validated, merged, and their
values written into accelerators.csv (the provenance value is the truth)."""

from __future__ import annotations

import csv
import importlib.util
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "models" / "catalog"
HEADER = "accelerator_id,metric,value,source_url,document,verification,note\n"


@pytest.fixture()
def script(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location(
        "spec_sources", ROOT / "scripts" / "spec_sources.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in ("accelerators.csv", "accelerator_spec_sources.csv"):
        shutil.copy(FIXTURE / name, tmp_path / name)
    monkeypatch.setattr(module, "ACCELERATORS", tmp_path / "accelerators.csv")
    monkeypatch.setattr(module, "SOURCES", tmp_path / "accelerator_spec_sources.csv")
    return module


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_merge_writes_the_provenance_value_into_the_cell(script, tmp_path, capsys):
    research = tmp_path / "research.csv"
    research.write_text(
        HEADER
        + "nvidia-a10,tdp_w,150,https://example.test/a10,A10 datasheet,vendor,Max power 150 W\n"
        + "nvidia-a10,peak_tf32_dense_tflops,60,https://example.test/a10,A10 datasheet,derived,"
        + "dense = sparse 120 / 2\n"
        + "nvidia-a10,peak_fp4_dense_tflops,,,,unpublished,no FP4 on Ampere\n",
        encoding="utf-8")
    script.merge([research])
    assert "1 cells changed" in capsys.readouterr().out
    a10 = next(r for r in _rows(tmp_path / "accelerators.csv")
               if r["accelerator_id"] == "nvidia-a10")
    assert (a10["tdp_w"], a10["peak_tf32_dense_tflops"]) == ("150", "60")
    records = {(r["accelerator_id"], r["metric"]): r
               for r in _rows(tmp_path / "accelerator_spec_sources.csv")}
    assert records[("nvidia-a10", "peak_tf32_dense_tflops")]["verification"] == "derived"
    # the accelerator's other filled cells keep a record: an honest 'secondary' fallback
    assert records[("nvidia-a10", "memory_gb")]["verification"] == "secondary"
    assert "not re-checked" in records[("nvidia-a10", "memory_gb")]["note"]
    # other accelerators' records are untouched
    assert records[("nvidia-h100-sxm5-80gb", "tdp_w")]["verification"] == "vendor"


@pytest.mark.parametrize(("line", "reason"), [
    ("nvidia-a10,tdp_w,150,https://example.test/a,sheet,derived,half of it", "without a rule"),
    ("nvidia-a10,tdp_w,150,https://example.test/a,sheet,datasheet,", "verification"),
    ("nvidia-a10,peak_fp4_dense_tflops,9000,,,unpublished,none", "unpublished with value"),
    ("nvidia-a10,tdp_w,150,,sheet,vendor,", "no source_url"),
    ("nvidia-b200,tdp_w,1000,https://example.test/b,sheet,vendor,", "unknown accelerator"),
])
def test_merge_refuses_malformed_records_and_changes_nothing(script, tmp_path, line, reason):
    before = (tmp_path / "accelerators.csv").read_text(encoding="utf-8")
    research = tmp_path / "research.csv"
    research.write_text(HEADER + line + "\n", encoding="utf-8")
    with pytest.raises(SystemExit, match=reason):
        script.merge([research])
    assert (tmp_path / "accelerators.csv").read_text(encoding="utf-8") == before
