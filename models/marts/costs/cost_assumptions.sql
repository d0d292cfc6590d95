-- one row per cost-model assumption (catalog/assumptions.csv), kept in the published
-- warehouse so the cost macros and `gpucost estimate` can read the defaults and cite them.
--
-- columns:
--   assumption_key: the assumption's key in catalog/assumptions.csv (mfu_hopper, pue, wacc,
--     cud_discount_aws_1y, ...)
--   value [see unit]: the figure, in the unit the unit column states
--   unit: unit of value (fraction, ratio, USD/kWh, years, hours, ...)
--   description: what the figure means, with its range or basis
--   source_url: where the figure comes from (a paper, a page, or a section of
--     ../shared/docs/cost-methods.md)

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
