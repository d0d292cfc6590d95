-- one row per metric of one accelerator as Epoch AI's ML hardware CSV states it, per fetch.
-- Epoch writes SI base units (the parser records the unit of each column): FLOP/s, OP/s,
-- bit-OP/s (Epoch's own TPP), byte, byte/s, W and mm2; int_spec_observations converts each
-- value to the unit its metric name carries (the macro spec_unit_factor).

select * from stg_raw__spec_observations
where stg_raw__spec_observations.source = 'epoch'
