-- one row per RCP scaling factor of an MLPerf Training result (raw.training_scaling_factors,
-- scaling.json), per fetch.

with

source as (

    select * from raw.training_scaling_factors

),

renamed as (

    select
        ---------- ids
        source.fetch_id,
        source.source,
        source.round,
        source.division,
        source.submitter,
        source.system,
        source.benchmark,

        ---------- value
        source.scaling_factor,

        ---------- timestamps
        source.observed_at

    from source

)

select * from renamed
