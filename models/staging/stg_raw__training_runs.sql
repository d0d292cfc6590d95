-- one row per timed run of an MLPerf Training result (raw.training_runs), per fetch: when the
-- run started and stopped, how it ended and what it trained.

select
    *,
    epoch(training_runs.run_stop - training_runs.run_start) as run_seconds
from raw.training_runs
