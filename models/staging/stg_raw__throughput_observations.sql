-- one row per metric of one measured benchmark result (raw.throughput_observations), per fetch:
-- a system's tokens/s or samples/s on one benchmark x scenario of one round, for the whole
-- system under test.

select * from raw.throughput_observations
