-- returns the in-run MFU of a training run from the calibrated MFU model (mart mfu_model;
-- docs/validation.md): the effective utilisation against the dense BF16 peak,
--   exp(intercept + hopper + moe + fp8 + hopper_log10_params x log10(params / 1e10)),
-- the terms applying by mfu_group ('ampere', 'hopper'), is_moe and precision, divided by
-- goodput (the fit is on reported GPU-hours, which hold goodput losses) and rescaled from the
-- BF16 peak to the run's peak (run_peak_tflops, e.g. the FP8 peak). Null when mfu_group is
-- null (a family the fit does not cover): the caller falls back to default_training_mfu.

create or replace macro calibrated_training_mfu(
    mfu_group, params_active, is_moe, precision_name, peak_bf16_tflops, run_peak_tflops,
    goodput
) as case
    when mfu_group is not null and params_active > 0 then
        exp(
            (select intercept from mfu_model)
            + case when mfu_group = 'hopper' then (select hopper from mfu_model) else 0 end
            + case when coalesce(is_moe, false) then (select moe from mfu_model) else 0 end
            + case when lower(precision_name) = 'fp8' then (select fp8 from mfu_model) else 0 end
            + case when mfu_group = 'hopper'
                then (select hopper_log10_params from mfu_model) * log10(least(
                    greatest(params_active, (select hopper_params_min from mfu_model)),
                    (select hopper_params_max from mfu_model)) / 1e10)
                else 0 end
        ) / goodput * peak_bf16_tflops / run_peak_tflops
end
