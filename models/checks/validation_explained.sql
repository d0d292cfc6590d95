-- guards: every published run with a reported MFU is predicted within 25% of its reported
-- GPU-hours at that MFU, or its row says why not (note: restarts, multi-stage recipes, ...).

with

runs as (

    select * from validation

)

select
    runs.run_id,
    runs.reported_mfu,
    runs.reported_gpu_hours,
    runs.predicted_gpu_hours_reported_mfu,
    runs.ratio_reported_mfu
from runs
where runs.reported_mfu is not null
    and not coalesce(runs.within_25pct, false)
    and runs.note is null
