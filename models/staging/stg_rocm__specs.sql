-- one row per metric of one accelerator as AMD's ROCm documentation tables state it, per
-- fetch, with the value converted to the unit its metric name carries.
-- * VRAM "GiB" as printed: AMD's datasheets print the same capacity as "GB" (MI300X 192),
--   and memory_gb is the vendor-printed capacity;
-- * peak TFLOP/s (INT8 rows too, TOP/s) and TB/s as they are.
-- A unit not listed leaves value null (check spec_units_converted).

with

source as (

    select * from stg_raw__spec_observations
    where stg_raw__spec_observations.source = 'rocm'

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
            when source.unit in ('TFLOP/s', 'TOP/s', 'TB/s') then 1.0
        end as value,

        ---------- as the source states it
        source.value as source_value,
        source.unit as source_unit,

        ---------- timestamps
        source.observed_at

    from source

)

select * from converted
