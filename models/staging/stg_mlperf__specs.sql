-- one row per metric of one accelerator as an MLPerf system description states it, per fetch
-- (one fetch = one submitted system), with the value converted to the unit its metric name
-- carries.
-- * memory: GB and GiB as printed (vendor-printed capacity); MiB, MB -> / 1024 (nvidia-smi's
--   "81559 MiB" of an 80 GB H100 is 79.6); TB -> * 1000;
-- * W, GB/s (NVLink, bidirectional per GPU) and counts as they are.
-- A unit not listed leaves value null (check spec_units_converted).

with

source as (

    select * from stg_raw__spec_observations
    where stg_raw__spec_observations.source = 'mlperf'

),

converted as (

    select
        ---------- ids
        source.fetch_id,
        source.source,
        source.accelerator_name_raw,
        source.metric,

        ---------- value in the metric's unit
        source.value * case
            when source.metric = 'memory_gb' and source.unit in ('GB', 'GiB') then 1.0
            when source.metric = 'memory_gb' and source.unit in ('MB', 'MiB') then 1.0 / 1024
            when source.metric = 'memory_gb' and source.unit = 'TB' then 1000.0
            when source.unit in ('W', 'GB/s', 'count') then 1.0
        end as value,

        ---------- as the source states it
        source.value as source_value,
        source.unit as source_unit,

        ---------- timestamps
        source.observed_at

    from source

)

select * from converted
