-- one row per metric of one accelerator as AMD's ROCm documentation tables state it, per
-- fetch: VRAM in GiB (AMD's datasheets print the same capacity as "GB", MI300X 192), peak
-- TFLOP/s (INT8 rows too, TOP/s) and TB/s; int_spec_observations converts each value to the
-- unit its metric name carries (the macro spec_unit_factor).

select * from stg_raw__spec_observations
where stg_raw__spec_observations.source = 'rocm'
