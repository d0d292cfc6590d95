-- returns the default in-run MFU for a run: the generation default (accelerator_cost_inputs
-- .mfu_default) against the BF16 peak, or fp8_mfu (mfu_fp8) against the FP8 peak for an FP8
-- run, times moe_multiplier (moe_mfu_multiplier) for a mixture of experts
-- (cost-methods.md §1.5). The last two come from the cost_defaults row.

create or replace macro default_training_mfu(
    generation_mfu, precision_name, is_moe, fp8_mfu, moe_multiplier
) as
    (case when lower(precision_name) = 'fp8' then fp8_mfu else generation_mfu end)
    * (case when coalesce(is_moe, false) then moe_multiplier else 1.0 end)
