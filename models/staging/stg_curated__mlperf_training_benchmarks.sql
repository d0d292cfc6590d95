-- one row per MLPerf Training benchmark (catalog/mlperf_training_benchmarks.csv): the model it
-- trains and the model FLOPs one trained token costs (6N pretraining, about 4N for LoRA).

select * replace (lower(benchmark) as benchmark) from curated.mlperf_training_benchmarks
