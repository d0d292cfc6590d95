-- one row per metric of one accelerator as Wikipedia's GPU list tables (gpu-info-api) state
-- it, per fetch, with the value converted to the unit its metric name carries.
-- * GB and GiB as printed (vendor-printed capacity, binary sizes); MB, MiB -> / 1024 (GPU
--   memory "MB" in these tables is binary);
-- * GB/s -> / 1000 (TB/s) for memory bandwidth;
-- * GFLOP/s -> / 1000, TFLOP/s as is; W and mm2 (the tables' "Die size (mm)") as they are.
-- A unit not listed leaves value null (check spec_units_converted).

with

source as (

    select * from stg_raw__spec_observations
    where stg_raw__spec_observations.source = 'wikipedia'

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
            when source.metric = 'memory_bw_tbps' and source.unit = 'GB/s' then 1e-3
            when source.unit = 'GFLOP/s' then 1e-3
            when source.unit = 'TFLOP/s' then 1.0
            when source.unit in ('W', 'mm2') then 1.0
        end as value,

        ---------- as the source states it
        source.value as source_value,
        source.unit as source_unit,

        ---------- timestamps
        source.observed_at

    from source

)

select * from converted
