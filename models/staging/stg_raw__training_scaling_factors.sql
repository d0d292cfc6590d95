-- one row per RCP scaling factor of an MLPerf Training result (raw.training_scaling_factors,
-- scaling.json), per fetch.

select * from raw.training_scaling_factors
