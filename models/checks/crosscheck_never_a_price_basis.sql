-- guards: a curated crosscheck table (source 'crosscheck') never becomes a price basis of the
-- cost marts, and never supplies a first-hand statistic of gpu_prices.

with

price_bases as (

    select * from int_price_bases

),

prices as (

    select * from gpu_prices

)

select
    price_bases.accelerator_id,
    price_bases.price_basis,
    price_bases.provider,
    price_bases.source
from price_bases
where price_bases.source = 'crosscheck'

union all

select
    prices.accelerator_id,
    prices.pricing_model as price_basis,
    prices.cheapest_provider as provider,
    prices.cheapest_source as source
from prices
where prices.cheapest_source = 'crosscheck'
