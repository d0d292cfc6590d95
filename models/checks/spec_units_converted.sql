-- guards: every spec observation in force was converted to the unit its metric name carries
-- (a unit the macro spec_unit_factor does not know leaves the value null).

with

observations as (

    select * from int_spec_observations

)

select
    observations.source,
    observations.metric,
    observations.source_unit,
    count(*) as n_rows
from observations
where observations.value is null
group by observations.source, observations.metric, observations.source_unit
