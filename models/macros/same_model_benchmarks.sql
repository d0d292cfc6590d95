-- returns the MLPerf Inference benchmarks (inference_benchmarks rows) whose model is the
-- estimate's: active and total parameters both within 10% of `active` and `total` (total null =
-- active). The one "same model" rule of `gpucost estimate inference` (measured_same_model, the
-- measured curves of --min-tokens-per-user).

create or replace macro same_model_benchmarks(active, total := null) as table

select bench.*
from inference_benchmarks as bench
where abs(bench.params_active / active - 1) <= 0.1
    and abs(bench.params_total / coalesce(total, active) - 1) <= 0.1
