-- one row per cost-model assumption (catalog/assumptions.csv), kept in the published
-- warehouse so the cost macros and `gpucost estimate` can read the defaults and cite them.

with

assumptions as (

    select * from stg_curated__assumptions

),

final as (

    select
        assumptions.assumption_key,
        assumptions.value,
        assumptions.unit,
        assumptions.description,
        assumptions.source_url
    from assumptions
    where assumptions.assumption_key is not null

)

select * from final
order by final.assumption_key
