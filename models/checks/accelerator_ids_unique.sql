-- guards: every curated accelerator has an id, and no id is used twice.

with

accelerator_specs as (

    select * from stg_curated__accelerators

)

select
    accelerator_specs.accelerator_id,
    count(*) as n_rows
from accelerator_specs
group by accelerator_specs.accelerator_id
having count(*) > 1
    or accelerator_specs.accelerator_id is null
