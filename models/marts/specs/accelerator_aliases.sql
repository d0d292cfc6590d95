-- one row per normalised accelerator spelling (alias_key: lowercase letters and digits only)
-- that names exactly one accelerator whatever the provider: canonical ids, catalog names and
-- provider-independent aliases. The cost macros resolve user input ("H100 SXM", "A100 80GB",
-- "TPU v5p") through this table; a spelling that only some providers use (bare "H100") is
-- not here, because it is ambiguous.
--
-- columns:
--   alias_key: the spelling normalised to lowercase letters and digits (user input is normalised
--     the same way to look it up)
--   alias: the spelling as written: an accelerator_id, a catalog name or an alias of
--     catalog/aliases.csv
--   matched_by: what the spelling is: 'accelerator_id', 'name' (catalog name), 'alias_gpu_name' or
--     'alias_sku' (a provider-independent row of catalog/aliases.csv); the first in this order wins
--     a key several give

with

accelerator_specs as (

    select * from stg_curated__accelerators

),

aliases as (

    select * from stg_curated__aliases

),

spellings as (

    select
        name_key(accelerator_specs.accelerator_id)
            as alias_key,
        accelerator_specs.accelerator_id as alias,
        accelerator_specs.accelerator_id,
        'accelerator_id' as matched_by,
        1 as priority
    from accelerator_specs

    union all

    select
        name_key(accelerator_specs.name) as alias_key,
        accelerator_specs.name as alias,
        accelerator_specs.accelerator_id,
        'name' as matched_by,
        2 as priority
    from accelerator_specs
    where accelerator_specs.name is not null

    union all

    -- stg_curated__aliases normalises alias_key the same way
    select
        aliases.alias_key,
        aliases.alias,
        aliases.accelerator_id,
        'alias_' || aliases.alias_kind as matched_by,
        case when aliases.alias_kind = 'gpu_name' then 3 else 4 end as priority
    from aliases
    where aliases.provider is null
        and aliases.accelerator_id is not null

),

keyed as (

    select * from spellings

),

-- a key that two accelerators claim (at its best priority) is ambiguous and left out
unambiguous as (

    select keyed.alias_key
    from keyed
    group by keyed.alias_key
    having count(distinct keyed.accelerator_id) = 1

),

final as (

    select
        keyed.alias_key,
        keyed.alias,
        keyed.accelerator_id,
        keyed.matched_by
    from keyed
    inner join unambiguous using (alias_key)
    where keyed.alias_key <> ''
    qualify row_number() over (
        partition by keyed.alias_key order by keyed.priority, keyed.alias
    ) = 1

)

select * from final
order by final.alias_key
