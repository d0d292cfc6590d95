-- one row per metric of one accelerator as an MLPerf system description states it, per fetch
-- (one fetch = one submitted system): memory in GB/GiB, MiB/MB (nvidia-smi's "81559 MiB" of
-- an 80 GB H100 is 79.6) or TB, W, GB/s (NVLink, bidirectional per GPU) and counts;
-- int_spec_observations converts each value to the unit its metric name carries (the macro
-- spec_unit_factor).

select * from stg_raw__spec_observations
where stg_raw__spec_observations.source = 'mlperf'
