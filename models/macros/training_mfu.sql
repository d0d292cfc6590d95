-- returns the in-run MFU of a training run on part part_id of accelerator_family, for every
-- family on one footing: the calibrated MFU model (calibrated_training_mfu: Ampere and Hopper
-- have their own fitted terms) times a factor measured in MLPerf Training against a fitted part:
-- a part's own pair where one measures it (mart mfu_generation_factors: TPU v4 against A100 on
-- BERT, so Ampere's curve; v5e and v5p against H100 on GPT-3, v6e through v5p, so Hopper's),
-- else its family's factor against Hopper (mart mfu_family_factors: measured where the family
-- has results beside Hopper's, else the cited defaults' ratio).
-- Null when params_active is unknown (the caller falls back to default_training_mfu).

create or replace macro training_mfu(
    part_id, accelerator_family, params_active, is_moe, precision_name, peak_bf16_dense_tflops,
    run_peak_tflops, goodput
) as calibrated_training_mfu(
    coalesce(
        (select generations.anchor_group from mfu_generation_factors as generations
         where generations.accelerator_id = part_id and generations.applied_factor is not null),
        mfu_group(accelerator_family),
        'hopper'
    ),
    params_active, is_moe, precision_name, peak_bf16_dense_tflops, run_peak_tflops, goodput
) * coalesce(
    (select generations.applied_factor from mfu_generation_factors as generations
     where generations.accelerator_id = part_id),
    (select factors.hopper_factor from mfu_family_factors as factors
     where factors.family = accelerator_family),
    1.0
)
