-- one row per metric of one measured benchmark result (raw.throughput_observations), per fetch:
-- a system's tokens/s or samples/s on one benchmark x scenario of one round, for the whole
-- system under test.

with

source as (

    select * from raw.throughput_observations

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
        source.accuracy_target,
        source.scenario,
        source.metric,

        ---------- value
        source.value,
        source.valid,
        source.ttft_limit_ms,
        source.tpot_limit_ms,
        source.ttft_mean_ms,
        source.tpot_mean_ms,

        ---------- timestamps
        source.observed_at

    from source

)

select * from renamed
