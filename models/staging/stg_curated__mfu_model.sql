-- one row per coefficient of the calibrated MFU model (catalog/mfu_model.csv, written by
-- `python -m gpucost.flows.mfu_fit` from the validation mart), typed.

with

source as (

    select * from curated.mfu_model

),

renamed as (

    select
        nullif(trim(source.term), '') as term,
        cast(nullif(trim(source.coefficient), '') as double) as coefficient,
        nullif(trim(source.description), '') as description
    from source

)

select * from renamed
