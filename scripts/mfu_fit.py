"""Fit the calibrated MFU model on the published runs and validate it out of sample.

    python scripts/mfu_fit.py            # from the published warehouse (read-only):
                                               # rewrites catalog/mfu_model.csv

The model (mart mfu_model, macro calibrated_training_mfu) predicts the *effective* utilisation
of a run against the dense BF16 peak, goodput losses included, i.e. the MFU its reported
GPU-hours imply (validation.implied_mfu_bf16, model FLOPs counting attention at the run's
sequence length):

    ln u = intercept + hopper [Hopper] + moe [MoE] + fp8 [FP8]
           + hopper_log10_params x log10(params_active / 1e10) [Hopper]

TPUs have no term: each generation takes the curve of the part its MLPerf Training pair is
measured against times that factor (mart mfu_generation_factors), so PaLM 540B on TPU v4 is
predicted out of sample. The FP8 term is measured, not fitted (one FP8 run, DeepSeek-V3,
cannot both set it and check it): the same model on the same number of the same GPUs, Llama
3.1 405B on 8,192 H100, in FP8 (MLPerf Training v5.0, mart training_measured:
mfu_bf16_equivalent) over BF16 (Llama 3 paper Table 4, assumption
mfu_bf16_llama31_405b_8192): fp8 = ln(FP8 / BF16). The other terms are fitted by ridge least
squares (penalty RIDGE_LAMBDA on every coefficient but the intercept, so a term no training
run covers falls back to the intercept) on the high-confidence runs only (`confidence` in
catalog/training_runs.csv, decided by the provenance of the figures, never by how well a run
fits). Leave-one-out: each high-confidence run is predicted by the model fitted on the
others. The arithmetic is plain Python (a 4 x 4 solve) so the fit is reproducible without
numerical libraries.
"""

from __future__ import annotations

import csv
import math
import statistics
import sys
from pathlib import Path
from typing import Any

CATALOG = Path(__file__).resolve().parents[1] / "catalog" / "mfu_model.csv"
RIDGE_LAMBDA = 0.3
TERMS = ("intercept", "hopper", "moe", "hopper_log10_params")  # fitted; fp8 measured
DESCRIPTIONS = {
    "intercept": "log effective utilisation (vs dense BF16 peak, goodput losses included) of a "
                 "dense BF16 run on an Ampere-family accelerator",
    "hopper": "added for Hopper-family accelerators (H100, H200, H800, GH200)",
    "moe": "added for a mixture of experts (params_total > params_active)",
    "fp8": "added for an FP8 run (utilisation still against the BF16 peak); measured, not "
           "fitted: ln(MLPerf Training v5.0 Llama 3.1 405B FP8 on 8,192 H100, BF16-equivalent "
           "MFU / the same model's BF16 MFU on 8,192 H100, Llama 3 paper Table 4)",
    "hopper_log10_params": "times log10(params_active / 1e10), Hopper only: smaller models "
                           "use a fast chip less well",
    "ridge_lambda": "ridge penalty on every coefficient but the intercept",
    "hopper_params_min": "smallest params_active of the fitted Hopper runs: the size term is "
                         "clamped to [hopper_params_min, hopper_params_max], no extrapolation",
    "hopper_params_max": "largest params_active of the fitted Hopper runs",
    "fitted_runs": "high-confidence runs of catalog/training_runs.csv the model is fitted on",
}
WITHIN = 0.25


def hopper_bounds(runs: list[dict[str, Any]]) -> tuple[float, float]:
    """Smallest and largest params_active of the Hopper runs (the size term's range)."""
    sizes = [r["params_active"] for r in runs if r["mfu_group"] == "hopper"] or [1e10]
    return min(sizes), max(sizes)


def features(run: dict[str, Any], bounds: tuple[float, float] | None = None) -> list[float]:
    """The model's fitted regressors (TERMS order); the size is clamped to `bounds` (the fitted
    Hopper range)."""
    group = run["mfu_group"]
    hopper = 1.0 if group == "hopper" else 0.0
    size = run["params_active"]
    if bounds:
        size = min(max(size, bounds[0]), bounds[1])
    return [
        1.0,
        hopper,
        1.0 if (run["params_total"] or 0) > run["params_active"] else 0.0,
        hopper * math.log10(size / 1e10),
    ]


def fp8_offset(run: dict[str, Any], fp8: float) -> float:
    """The measured FP8 term where the run is FP8 (an offset: not fitted)."""
    return fp8 if run["precision"] == "fp8" else 0.0


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (a is small and, with the ridge, regular)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col], strict=True)]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit(runs: list[dict[str, Any]], fp8: float, lam: float = RIDGE_LAMBDA) -> list[float]:
    """Ridge coefficients (TERMS order) of ln implied_mfu_bf16 - the FP8 offset on
    features(run)."""
    xs = [features(r) for r in runs]
    ys = [math.log(r["implied_mfu_bf16"]) - fp8_offset(r, fp8) for r in runs]
    k = len(TERMS)
    ata = [[sum(x[i] * x[j] for x in xs) + (lam if i == j and i > 0 else 0.0)
            for j in range(k)] for i in range(k)]
    aty = [sum(x[i] * y for x, y in zip(xs, ys, strict=True)) for i in range(k)]
    return _solve(ata, aty)


def predict(coef: list[float], run: dict[str, Any], bounds: tuple[float, float],
            fp8: float) -> float:
    """Effective utilisation against the BF16 peak (size clamped to `bounds`, as the macro)."""
    return math.exp(sum(c * f for c, f in zip(coef, features(run, bounds), strict=True))
                    + fp8_offset(run, fp8))


def high_confidence(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if r["confidence"] == "high" and r["implied_mfu_bf16"]
            and r["mfu_group"]]


def leave_one_out(rows: list[dict[str, Any]], fp8: float) -> list[dict[str, Any]]:
    """Per high-confidence run: the model fitted without it, its predicted GPU-hours / reported
    (calibrated, out of sample) beside plain 6ND at mfu_plain (ratio_plain from the mart). The
    measured FP8 term comes from no published run, so it is the same in every fit. A
    high-confidence run on a part the fit does not cover (PaLM on TPU v4: a fitted curve times
    an MLPerf factor) is out of sample as published: its ratio is the mart's ratio_default."""
    runs = high_confidence(rows)
    out = []
    for held in runs:
        rest = [r for r in runs if r is not held]
        u = predict(fit(rest, fp8), held, hopper_bounds(rest), fp8)
        out.append({"run_id": held["run_id"], "model": held["model"],
                    "accelerator_id": held["accelerator_id"],
                    "loo_ratio": held["implied_mfu_bf16"] / u,
                    "plain_ratio": held["ratio_plain"]})
    for other in unfitted(rows):
        out.append({"run_id": other["run_id"], "model": other["model"],
                    "accelerator_id": other["accelerator_id"],
                    "loo_ratio": other["ratio_default"], "plain_ratio": other["ratio_plain"]})
    return sorted(out, key=lambda r: r["run_id"])


def unfitted(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """High-confidence runs on a part without a fitted group (a fitted curve times a measured
    factor prices them): out of sample as the mart predicts them."""
    return [r for r in rows if r["confidence"] == "high" and not r["mfu_group"]
            and r["ratio_default"]]


def summary(ratios: list[float]) -> dict[str, float]:
    logs = [math.log(r) for r in ratios]
    return {
        "n": len(ratios),
        "within": sum(abs(r - 1) <= WITHIN for r in ratios) / len(ratios),
        "median": statistics.median(ratios),
        "spread": math.exp(statistics.pstdev(logs)),
    }


def validation_rows(con: Any) -> list[dict[str, Any]]:
    cur = con.execute("select * from validation order by run_id")
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def fp8_term(con: Any) -> float:
    """ln(FP8 / BF16 in-run MFU of the same model on the same cluster): MLPerf Training's
    Llama 3.1 405B on 8,192 H100 (BF16-equivalent, attention not counted, as Meta's figure)
    over assumption mfu_bf16_llama31_405b_8192."""
    fp8 = con.execute(
        "select avg(mfu_bf16_equivalent) from (select distinct round, submitter, system, "
        "mfu_bf16_equivalent from training_measured where benchmark = 'llama31_405b' "
        "and accelerator_id = 'nvidia-h100-sxm5-80gb' and accelerator_count = 8192 "
        "and precision = 'fp8')").fetchone()[0]
    bf16 = con.execute("select value from cost_assumptions "
                       "where assumption_key = 'mfu_bf16_llama31_405b_8192'").fetchone()[0]
    if not fp8 or not bf16:
        raise SystemExit("mfu_fit: the FP8 term needs MLPerf Training's Llama 3.1 405B on "
                         "8,192 H100 (load ../shared/data/training) and the assumption "
                         "mfu_bf16_llama31_405b_8192")
    return math.log(fp8 / bf16)


def catalog_rows(coef: list[float], runs: list[dict[str, Any]],
                 fp8: float) -> list[dict[str, str]]:
    terms = dict(zip(TERMS, coef, strict=True)) | {"fp8": fp8}
    order = ("intercept", "hopper", "moe", "fp8", "hopper_log10_params")
    rows = [{"term": t, "coefficient": f"{terms[t]:.6f}", "description": DESCRIPTIONS[t]}
            for t in order]
    rows.append({"term": "ridge_lambda", "coefficient": f"{RIDGE_LAMBDA:g}",
                 "description": DESCRIPTIONS["ridge_lambda"]})
    for term, value in zip(("hopper_params_min", "hopper_params_max"), hopper_bounds(runs),
                           strict=True):
        rows.append({"term": term, "coefficient": f"{value:g}", "description": DESCRIPTIONS[term]})
    rows.append({"term": "fitted_runs", "coefficient": str(len(runs)),
                 "description": DESCRIPTIONS["fitted_runs"]})
    return rows


def write_catalog(rows: list[dict[str, str]], path: Path = CATALOG) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=["term", "coefficient", "description"],
                           lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def main() -> int:
    from gpucost.warehouse import data_dir
    from gpucost.warehouse.publish import connect_readonly

    con = connect_readonly(data_dir())
    try:
        rows = validation_rows(con)
        fp8 = fp8_term(con)
    finally:
        con.close()
    runs = high_confidence(rows)
    write_catalog(catalog_rows(fit(runs, fp8), runs, fp8))
    print(f"rewrote {CATALOG} from {len(runs)} high-confidence runs; rebuild (gpucost refresh)"
          " and regenerate docs/validation.md (python scripts/validation_doc.py)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
