-- one row per MLPerf Inference benchmark model (catalog/mlperf_benchmarks.csv): the shape of
-- the model behind a benchmark of inference_throughput, which `gpucost estimate --inference`
-- uses to show measured results of the same model beside its roofline.
--
-- columns:
--   benchmark: the benchmark key (inference_throughput.benchmark)
--   model: the model's name
--   params_active [parameters]: parameters active per token
--   params_total [parameters]: all parameters (= params_active for a dense model)
--   n_layers [layers]: transformer layers; null when not catalogued
--   n_kv_heads [heads]: key/value heads (grouped-query attention); null for other attention
--   head_dim [dimensions]: dimension of one head
--   source_url: where the shape is published
--   note: what the shape rests on

with

benchmarks as (

    select * from stg_curated__mlperf_benchmarks

)

select
    benchmarks.benchmark,
    benchmarks.model,
    benchmarks.params_active,
    benchmarks.params_total,
    benchmarks.n_layers,
    benchmarks.n_kv_heads,
    benchmarks.head_dim,
    benchmarks.source_url,
    benchmarks.note
from benchmarks
order by benchmarks.benchmark
