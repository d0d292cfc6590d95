-- returns the in-run MFU of a training run on part part_id of accelerator_family, for every
-- family on one footing: the calibrated MFU model (calibrated_training_mfu: Ampere, Hopper and
-- TPU have their own fitted terms; every other family takes Hopper's at the same size and
-- precision) times the family's hopper_factor (mart mfu_family_factors: measured in MLPerf
-- Training where the family has results beside Hopper's, else the cited defaults' ratio), and a
-- part's own factor where an MLPerf pair measures it against the part the fitted term was set
-- on (mart mfu_generation_factors.applied_factor: TPU generations over TPU v4).
-- Null when params_active is unknown (the caller falls back to default_training_mfu).

create or replace macro training_mfu(
    part_id, accelerator_family, params_active, is_moe, precision_name, peak_bf16_tflops,
    run_peak_tflops, goodput
) as calibrated_training_mfu(
    coalesce(mfu_group(accelerator_family), 'hopper'), params_active, is_moe, precision_name,
    peak_bf16_tflops, run_peak_tflops, goodput
) * coalesce(
    (select factors.hopper_factor from mfu_family_factors as factors
     where factors.family = accelerator_family),
    1.0
) * coalesce(
    (select generations.applied_factor from mfu_generation_factors as generations
     where generations.accelerator_id = part_id),
    1.0
)
