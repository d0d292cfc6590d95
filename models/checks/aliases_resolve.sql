-- guards: every alias names an accelerator that exists, with a known kind.

with

aliases as (

    select * from stg_curated__aliases

),

accelerator_specs as (

    select * from stg_curated__accelerators

)

select
    aliases.alias,
    aliases.alias_kind,
    aliases.provider,
    aliases.accelerator_id
from aliases
left join accelerator_specs using (accelerator_id)
where accelerator_specs.accelerator_id is null
    or aliases.alias_kind is null
    or aliases.alias_kind not in ('gpu_name', 'sku')
    or aliases.alias_key = ''
