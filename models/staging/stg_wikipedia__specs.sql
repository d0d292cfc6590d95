-- one row per metric of one accelerator as Wikipedia's GPU list tables (gpu-info-api) state
-- it, per fetch: GB/GiB/MB/MiB (GPU memory "MB" in these tables is binary), GB/s, GFLOP/s or
-- TFLOP/s, W and mm2 (the tables' "Die size (mm)"); int_spec_observations converts each value
-- to the unit its metric name carries (the macro spec_unit_factor).

select * from stg_raw__spec_observations
where stg_raw__spec_observations.source = 'wikipedia'
