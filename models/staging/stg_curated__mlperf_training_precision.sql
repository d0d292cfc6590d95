-- one row per MLPerf Training result (catalog/mlperf_training_precision.csv): the numeric
-- precision its matmuls ran in (bf16, fp8, fp4, int8), read in the submitter's own config
-- (the run logs do not say), with the config's address.

select * replace (lower(benchmark) as benchmark, lower(precision) as precision)
from curated.mlperf_training_precision
