-- one row per benchmarked system description (raw.system_descriptions), per fetch: the
-- accelerator as the submitter spells it, how many per node and how many nodes, availability
-- and software stack.

with

source as (

    select * from raw.system_descriptions

),

renamed as (

    select
        ---------- ids
        source.fetch_id,
        source.source,
        source.round,
        source.division,
        source.submitter,
        source.system,
        source.system_name,
        source.accelerator_name_raw,

        ---------- counts
        source.accelerators_per_node,
        source.number_of_nodes,

        ---------- attributes
        source.availability,
        source.framework,

        ---------- timestamps
        source.observed_at

    from source

)

select * from renamed
