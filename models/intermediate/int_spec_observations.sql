-- one row per spec observation in force: source x stream (the fetch in force) x accelerator
-- name as the source spells it x metric, value converted to the unit its metric name carries
-- (the macro spec_unit_factor), with the accelerator resolved through catalog/aliases.csv.
--
-- * only the fetches in force count (int_fetches_in_force): a failed or refused fetch never
--   displaces a source's last good data, and an older snapshot never adds to a newer one;
-- * accelerator_id precedence (normalised keys: lowercase letters and digits only):
--   gpu_name alias scoped to this source (aliases.provider = the source name, for spellings
--   only one source uses, e.g. Epoch's "NVIDIA A100 PCIe" = its 40 GB row)
--   > gpu_name alias for any provider;
-- * values are rounded to 6 decimals so that the same figure stated twice compares equal.

with

observations as (

    -- every spec source's staging model, models/staging/stg_<source>__specs.sql (the runner
    -- expands the template: a new source adds its file, not a line here)
    {{ union_all('stg_*__specs') }}

),

fetches_in_force as (

    select * from int_fetches_in_force

),

aliases as (

    select * from stg_curated__aliases

),

alias_lookup as (

    select
        aliases.provider,
        aliases.alias_key,
        min(aliases.accelerator_id) as accelerator_id
    from aliases
    where aliases.alias_kind = 'gpu_name'
        and aliases.alias_key <> ''
        and aliases.accelerator_id is not null
    group by aliases.provider, aliases.alias_key

),

in_force as (

    select
        observations.*,
        fetches_in_force.stream,
        name_key(observations.accelerator_name_raw)
            as name_key
    from observations
    inner join fetches_in_force using (fetch_id)

),

final as (

    select
        ---------- ids
        in_force.source,
        in_force.stream,
        in_force.fetch_id,
        in_force.accelerator_name_raw,
        in_force.name_key,
        coalesce(source_alias.accelerator_id, any_alias.accelerator_id) as accelerator_id,
        case
            when source_alias.accelerator_id is not null then 'gpu_name_alias_source'
            when any_alias.accelerator_id is not null then 'gpu_name_alias'
        end as mapped_by,
        in_force.metric,

        ---------- value in the unit its metric name carries, and as the source states it
        round(in_force.value * spec_unit_factor(in_force.metric, in_force.unit), 6) as value,
        in_force.value as source_value,
        in_force.unit as source_unit,

        ---------- timestamps
        in_force.observed_at

    from in_force
    left join alias_lookup as source_alias
        on source_alias.provider = in_force.source
        and source_alias.alias_key = in_force.name_key
    left join alias_lookup as any_alias
        on any_alias.provider is null
        and any_alias.alias_key = in_force.name_key

)

select * from final
