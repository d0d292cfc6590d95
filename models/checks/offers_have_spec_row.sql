-- guards: every offer mapped to an accelerator (gpu_offers.accelerator_id) has a row in the
-- `accelerators` mart, so no price is published without its spec row.

with

offers as (

    select * from gpu_offers

),

accelerator_rows as (

    select * from accelerators

)

select
    offers.accelerator_id,
    offers.source,
    offers.provider,
    offers.sku,
    offers.gpu_name_raw
from offers
anti join accelerator_rows using (accelerator_id)
where offers.accelerator_id is not null
