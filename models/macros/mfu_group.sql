-- returns the group of the calibrated MFU model (mfu_model) an accelerator family falls in:
-- 'ampere' (A100 and the other Ampere parts), 'hopper' (H100, H200, H800, GH200) or 'tpu';
-- null for a family no high-confidence published run covers (Blackwell, CDNA, Ada, Volta,
-- Gaudi, Trainium, ...), which keeps its catalog constant (default_training_mfu).

create or replace macro mfu_group(family) as case
    when family = 'Ampere' then 'ampere'
    when family = 'Hopper' then 'hopper'
    when family = 'TPU' then 'tpu'
end
