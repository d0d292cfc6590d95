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
--
-- columns:
--   run_id: the run's id in catalog/training_runs.csv
--   model: the model trained (Llama 2 7B, ...)
--   accelerator: the accelerator as the report names it (resolved through accelerator_aliases)
--   precision: the run's training precision (bf16 unless the catalog says otherwise)
--   tokens [tokens]: training tokens reported
--   n_gpus [GPUs]: cluster size reported (for reference; not used in the predictions)
--   flops [FLOP]: model FLOPs: 6 x params_active x tokens
--   peak_dense_tflops [TFLOP/s]: dense peak of the accelerator at the run's precision
--   reported_gpu_hours [GPU-hours]: GPU-hours the authors reported
--   gpu_hours_basis: what the reported GPU-hours cover, as the source states it
--   reported_mfu [fraction]: MFU the authors reported (or derived from their reported throughput);
--     null when none
--   reported_mfu_basis: how reported_mfu was stated or derived
--   recompute: 'full' when the reported MFU counts activation recomputation (hardware FLOPs, 8 N
--     D), else 'none'
--   implied_mfu [fraction]: flops / (reported_gpu_hours x 3600 x peak_dense_tflops): a lower bound
--     on in-run MFU (reported hours also hold restarts, evaluation and stalls)
--   default_mfu [fraction]: the catalog default MFU for the run (default_training_mfu: generation,
--     FP8, MoE)
--   default_mfu_source: the assumption key(s) behind default_mfu (mfu_ampere, ..., with ' x
--     moe_mfu_multiplier' for a mixture of experts)
--   goodput [fraction]: the catalog goodput applied in both predictions
--   predicted_gpu_hours_default [GPU-hours]: flops / (peak_dense_tflops x default_mfu x 3600) /
--     goodput
--   ratio_default [ratio]: predicted_gpu_hours_default / reported_gpu_hours
--   predicted_gpu_hours_reported_mfu [GPU-hours]: the same at reported_mfu (with 8 N D FLOPs when
--     recompute is 'full'); null without a reported MFU
--   ratio_reported_mfu [ratio]: predicted_gpu_hours_reported_mfu / reported_gpu_hours
--   within_25pct: ratio_reported_mfu is within 25% of 1; null without a reported MFU; when false,
--     note says why (check validation_explained)
--   source_url: where the run's figures come from
--   mfu_source_url: where the reported MFU comes from
--   note: caveats, and why a prediction misses when within_25pct is false

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
