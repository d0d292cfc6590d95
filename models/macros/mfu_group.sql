-- returns the group of the calibrated MFU model (mfu_model) an accelerator family falls in:
-- 'ampere' (A100 and the other Ampere parts) or 'hopper' (H100, H200, H800, GH200); null for a
-- family without high-confidence published runs of its own (Blackwell, CDNA, TPU, Ada, Volta,
-- Gaudi, Trainium, ...), which takes a fitted group's curve times a factor measured in MLPerf
-- Training (marts mfu_generation_factors, mfu_family_factors) or the cited defaults' ratio.

create or replace macro mfu_group(family) as case
    when family = 'Ampere' then 'ampere'
    when family = 'Hopper' then 'hopper'
end
