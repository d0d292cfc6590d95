-- one row per MLPerf round (catalog/mlperf_rounds.csv): the day MLCommons published its
-- results, with the page that says so. A result of the round is observed at that day.

select * replace (lower(suite) as suite) from curated.mlperf_rounds
