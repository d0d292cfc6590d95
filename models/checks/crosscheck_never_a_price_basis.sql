-- guards: a curated crosscheck table (source 'crosscheck') never becomes a price basis of any
-- kind (observed, estimated: price_bases), and never supplies a first-hand statistic of
-- gpu_prices.

with

bases as (

    select * from price_bases

),

prices as (

    select * from gpu_prices

)

select
    bases.accelerator_id,
    bases.price_basis,
    bases.provider,
    bases.source
from bases
where bases.source = 'crosscheck'

union all

select
    prices.accelerator_id,
    prices.pricing_model as price_basis,
    prices.cheapest_provider as provider,
    prices.cheapest_source as source
from prices
where prices.cheapest_source = 'crosscheck'
