-- one row per part whose speed factor an MLPerf Training pair sets (catalog/mfu_factor_pairs.csv):
-- the part, the anchor part it is measured against, and the benchmark both ran (issue 38).

select * replace (lower(benchmark) as benchmark) from curated.mfu_factor_pairs
