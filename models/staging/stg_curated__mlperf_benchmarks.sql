-- one row per MLPerf Inference benchmark model (catalog/mlperf_benchmarks.csv): the model's
-- shape, for the roofline of the same model the measurements are compared with.

select * replace (
    lower(benchmark) as benchmark,
    coalesce(params_total, params_active) as params_total
)
from curated.mlperf_benchmarks
