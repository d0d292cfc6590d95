-- one row per provider x sku x gpu_name_raw seen in a price observation (in force or in the
-- daily history): the accelerator it maps to, and by which alias.
--
-- * precedence (normalised keys: lowercase letters and digits only): sku alias for that
--   provider > sku alias for any provider > gpu_name alias for that provider > gpu_name
--   alias for any provider; one accelerator per (kind, provider, key): the smallest id
--   (conflicting aliases are caught by the check aliases_unambiguous).
-- * warehouse/gates.py applies the same rule at load time (tests/warehouse/test_gates.py).

with

snapshots as (

    select * from int_price_snapshots_current

),

history_names as (

    select * from int_price_daily_names

),

aliases as (

    select * from stg_curated__aliases

),

alias_lookup as (

    select
        aliases.alias_kind,
        aliases.provider,
        aliases.alias_key,
        min(aliases.accelerator_id) as accelerator_id
    from aliases
    where aliases.alias_key <> ''
        and aliases.accelerator_id is not null
    group by aliases.alias_kind, aliases.provider, aliases.alias_key

),

names as (

    select distinct
        snapshots.provider,
        snapshots.sku,
        snapshots.gpu_name_raw
    from snapshots
    union
    select
        history_names.provider,
        history_names.sku,
        history_names.gpu_name_raw
    from history_names

),

keyed as (

    select
        names.*,
        name_key(names.sku) as sku_key,
        name_key(names.gpu_name_raw) as gpu_name_key
    from names

),

final as (

    select
        keyed.provider,
        keyed.sku,
        keyed.gpu_name_raw,
        coalesce(
            sku_provider_alias.accelerator_id,
            sku_any_alias.accelerator_id,
            gpu_name_provider_alias.accelerator_id,
            gpu_name_any_alias.accelerator_id
        ) as accelerator_id,
        case
            when sku_provider_alias.accelerator_id is not null then 'sku_alias_provider'
            when sku_any_alias.accelerator_id is not null then 'sku_alias'
            when gpu_name_provider_alias.accelerator_id is not null then 'gpu_name_alias_provider'
            when gpu_name_any_alias.accelerator_id is not null then 'gpu_name_alias'
        end as mapped_by
    from keyed
    left join alias_lookup as sku_provider_alias
        on sku_provider_alias.alias_kind = 'sku'
        and sku_provider_alias.provider = keyed.provider
        and sku_provider_alias.alias_key = keyed.sku_key
    left join alias_lookup as sku_any_alias
        on sku_any_alias.alias_kind = 'sku'
        and sku_any_alias.provider is null
        and sku_any_alias.alias_key = keyed.sku_key
    left join alias_lookup as gpu_name_provider_alias
        on gpu_name_provider_alias.alias_kind = 'gpu_name'
        and gpu_name_provider_alias.provider = keyed.provider
        and gpu_name_provider_alias.alias_key = keyed.gpu_name_key
    left join alias_lookup as gpu_name_any_alias
        on gpu_name_any_alias.alias_kind = 'gpu_name'
        and gpu_name_any_alias.provider is null
        and gpu_name_any_alias.alias_key = keyed.gpu_name_key

)

select * from final
