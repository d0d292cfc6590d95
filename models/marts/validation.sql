-- one row per published training run (catalog/training_runs.csv): reported GPU-hours beside
-- the GPU-hours the cost models predict, and the MFU the report implies.
--
-- * flops: training_flops(params_active, tokens) = 6 N D (model FLOPs);
-- * predicted_gpu_hours_default: gpu_hours_for_flops at the catalog default MFU for the
--   accelerator (default_training_mfu: generation, FP8, MoE) and the catalog goodput;
-- * predicted_gpu_hours_reported_mfu: the same at the MFU the authors reported; a reported
--   figure that counts activation recomputation (recompute 'full') is matched with the
--   hardware FLOPs 8 N D;
-- * implied_mfu: implied_mfu(flops, reported GPU-hours, dense peak at the run's precision);
-- * within_25pct: the reported-MFU prediction is within 25% of the reported GPU-hours; when it
--   is not, `note` must say why (check validation_explained).

with

runs as (

    select * from stg_curated__training_runs

),

aliases as (

    select * from accelerator_aliases

),

accelerator_inputs as (

    select * from accelerator_cost_inputs

),

resolved as (

    select
        runs.*,
        accelerator_inputs.accelerator_id,
        precision_peak_tflops(
            runs.precision,
            accelerator_inputs.peak_bf16_dense_tflops,
            accelerator_inputs.peak_fp16_dense_tflops,
            accelerator_inputs.peak_fp8_dense_tflops,
            accelerator_inputs.peak_fp4_dense_tflops,
            accelerator_inputs.peak_int8_dense_tflops
        ) as peak_dense_tflops,
        default_training_mfu(
            accelerator_inputs.mfu_default,
            runs.precision,
            runs.params_total > runs.params_active,
            defaults.default_mfu_fp8,
            defaults.default_moe_mfu_multiplier
        ) as default_mfu,
        (case when runs.precision = 'fp8' then 'mfu_fp8'
            else accelerator_inputs.mfu_assumption_key end)
        || (case when runs.params_total > runs.params_active
            then ' x moe_mfu_multiplier' else '' end) as default_mfu_source,
        coalesce(defaults.default_goodput, 1.0) as goodput
    from runs
    cross join cost_defaults as defaults
    left join aliases
        on aliases.alias_key = runs.accelerator_key
    left join accelerator_inputs
        on accelerator_inputs.accelerator_id = aliases.accelerator_id

),

predicted as (

    select
        resolved.*,
        training_flops(resolved.params_active, resolved.tokens) as flops,
        training_flops(resolved.params_active, resolved.tokens, recompute := resolved.recompute)
            as flops_at_reported_utilisation
    from resolved

),

final as (

    select
        ---------- the run
        predicted.run_id,
        predicted.model,
        predicted.accelerator,
        predicted.accelerator_id,
        predicted.precision,
        predicted.params_active,
        coalesce(predicted.params_total, predicted.params_active) as params_total,
        predicted.tokens,
        predicted.n_gpus,
        predicted.flops,
        predicted.peak_dense_tflops,

        ---------- reported
        predicted.reported_gpu_hours,
        predicted.gpu_hours_basis,
        predicted.reported_mfu,
        predicted.reported_mfu_basis,
        predicted.recompute,

        ---------- implied by the report
        implied_mfu(predicted.flops, predicted.reported_gpu_hours, predicted.peak_dense_tflops)
            as implied_mfu,

        ---------- predicted at the catalog default MFU
        predicted.default_mfu,
        predicted.default_mfu_source,
        predicted.goodput,
        gpu_hours_for_flops(
            predicted.flops, predicted.peak_dense_tflops, predicted.default_mfu,
            predicted.goodput
        ) as predicted_gpu_hours_default,
        gpu_hours_for_flops(
            predicted.flops, predicted.peak_dense_tflops, predicted.default_mfu,
            predicted.goodput
        ) / predicted.reported_gpu_hours as ratio_default,

        ---------- predicted at the reported MFU
        gpu_hours_for_flops(
            predicted.flops_at_reported_utilisation, predicted.peak_dense_tflops,
            predicted.reported_mfu, predicted.goodput
        ) as predicted_gpu_hours_reported_mfu,
        gpu_hours_for_flops(
            predicted.flops_at_reported_utilisation, predicted.peak_dense_tflops,
            predicted.reported_mfu, predicted.goodput
        ) / predicted.reported_gpu_hours as ratio_reported_mfu,
        abs(
            gpu_hours_for_flops(
                predicted.flops_at_reported_utilisation, predicted.peak_dense_tflops,
                predicted.reported_mfu, predicted.goodput
            ) / predicted.reported_gpu_hours - 1
        ) <= 0.25 as within_25pct,

        ---------- provenance
        predicted.source_url,
        predicted.mfu_source_url,
        predicted.note

    from predicted

)

select * from final
order by final.run_id
