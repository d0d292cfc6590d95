-- guards: one spelling (normalised key) of one kind, for one provider scope, maps to one
-- accelerator only.

with

aliases as (

    select * from stg_curated__aliases

)

select
    aliases.alias_kind,
    aliases.provider,
    aliases.alias_key,
    string_agg(distinct aliases.accelerator_id, ', ' order by aliases.accelerator_id)
        as accelerator_ids
from aliases
group by aliases.alias_kind, aliases.provider, aliases.alias_key
having count(distinct aliases.accelerator_id) > 1
