-- one row per metric of one accelerator as one source states it (long format), per fetch.

with

source as (

    select * from raw.spec_observations

),

renamed as (

    select
        ---------- ids
        source.fetch_id,
        source.source,
        source.accelerator_name_raw,
        source.metric,

        ---------- value
        source.value,
        source.unit,

        ---------- timestamps
        source.observed_at

    from source

)

select * from renamed
