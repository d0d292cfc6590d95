-- one row per published training run (catalog/training_runs.csv): reported GPU-hours beside
-- the GPU-hours the cost models predict, and the MFU the report implies.
--
-- * flops: training_flops(params_active, tokens, n_layers, d_model, seq_len) = 6 N D plus the
--   attention scores at the run's sequence length, 12 x layers x d_model x seq_len x D (PaLM
--   App. B; the shape cited per run in shape_source_url), the FLOPs the MFU model counts;
--   flops_6nd = 6 N D alone;
-- * predicted_gpu_hours_default: gpu_hours_for_flops at the default MFU of an estimate: the
--   calibrated MFU model (calibrated_training_mfu, mart mfu_model) for the families it covers,
--   else the catalog constant (default_training_mfu: generation, FP8, MoE), and the catalog
--   goodput. In sample: the model was fitted on these runs (docs/validation.md gives the
--   leave-one-out figures, scripts/mfu_fit.py);
-- * predicted_gpu_hours_plain: 6 N D at one utilisation for every run (assumption mfu_plain,
--   0.40), for comparison;
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
--   n_layers [layers]: the model's layers (shape_source_url); null when not catalogued
--   d_model [width]: the model's hidden width (shape_source_url)
--   seq_len [tokens]: the sequence length the run was trained at (most of its tokens)
--   flops [FLOP]: model FLOPs: 6 x params_active x tokens + 12 x n_layers x d_model x seq_len x
--     tokens (attention, when the shape is catalogued)
--   flops_6nd [FLOP]: 6 x params_active x tokens (no attention)
--   peak_dense_tflops [TFLOP/s]: dense peak of the accelerator at the run's precision
--   reported_gpu_hours [GPU-hours]: GPU-hours the authors reported
--   gpu_hours_basis: what the reported GPU-hours cover, as the source states it
--   reported_mfu [fraction]: MFU the authors reported (or derived from their reported throughput);
--     null when none
--   reported_mfu_basis: how reported_mfu was stated or derived
--   recompute: 'full' when the reported MFU counts activation recomputation (hardware FLOPs, 8 N
--     D), else 'none'
--   confidence: 'high' when the reported GPU-hours are the developers' own measured figure for
--     the model (model card, paper, logbook; a stated rate or cluster time counts), 'low' for
--     an announced round figure, an ideal derived from assumed throughput, a third-party
--     estimate or approximate tokens; decided by provenance only. The MFU model is fitted on
--     the high-confidence runs
--   confidence_basis: why the run has its confidence
--   implied_mfu [fraction]: flops / (reported_gpu_hours x 3600 x peak_dense_tflops): a lower bound
--     on in-run MFU (reported hours also hold restarts, evaluation and stalls)
--   peak_bf16_dense_tflops [TFLOP/s]: dense BF16 peak of the accelerator
--   implied_mfu_bf16 [fraction]: implied_mfu against the BF16 peak whatever the run's precision:
--     what the calibrated MFU model is fitted on
--   mfu_group: the calibrated MFU model's group of the accelerator (mfu_group: ampere, hopper);
--     null for a family it does not fit (a TPU takes a fitted group's curve times its MLPerf
--     factor: predicted out of sample)
--   default_mfu [fraction]: the MFU an estimate uses for the run: training_mfu (the calibrated
--     model for Ampere and Hopper; a TPU generation the curve of the part its MLPerf pair
--     anchors on times that factor, mfu_generation_factors; Hopper's times the family factor of
--     mfu_family_factors for any other family) x counted_flops_share (1 when the run's shape
--     is catalogued), else the catalog constant (default_training_mfu) without params
--   default_mfu_source: 'mfu_model' (the calibrated model), the family factor's words
--     (mfu_family_factors.mfu_source) or the assumption key(s) behind the constant
--   goodput [fraction]: the catalog goodput applied in both predictions
--   predicted_gpu_hours_default [GPU-hours]: flops / (peak_dense_tflops x default_mfu x 3600) /
--     goodput
--   ratio_default [ratio]: predicted_gpu_hours_default / reported_gpu_hours
--   plain_mfu [fraction]: the plain 6ND preset's utilisation (assumption mfu_plain)
--   predicted_gpu_hours_plain [GPU-hours]: flops_6nd / (peak_dense_tflops x plain_mfu x 3600) /
--     goodput
--   ratio_plain [ratio]: predicted_gpu_hours_plain / reported_gpu_hours
--   predicted_gpu_hours_reported_mfu [GPU-hours]: flops_6nd at reported_mfu (8 N D when recompute
--     is 'full': reported MFUs count no attention); null without a reported MFU
--   ratio_reported_mfu [ratio]: predicted_gpu_hours_reported_mfu / reported_gpu_hours
--   within_25pct: ratio_reported_mfu is within 25% of 1; null without a reported MFU; when false,
--     note says why (check validation_explained)
--   source_url: where the run's figures come from
--   mfu_source_url: where the reported MFU comes from
--   shape_source_url: where n_layers, d_model and seq_len come from
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

-- each run's accelerator and its peak at the run's precision
run_accelerators as (

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
        ) as peak_dense_tflops
    from runs
    left join aliases
        on aliases.alias_key = runs.accelerator_key
    left join accelerator_inputs using (accelerator_id)

),

resolved as (

    select
        runs.*,
        accelerator_inputs.peak_bf16_dense_tflops,
        mfu_group(accelerator_inputs.family) as mfu_group,
        coalesce(
            training_mfu(
                runs.accelerator_id,
                accelerator_inputs.family,
                runs.params_active,
                runs.params_total > runs.params_active,
                runs.precision,
                coalesce(accelerator_inputs.peak_bf16_dense_tflops,
                    accelerator_inputs.peak_fp16_dense_tflops),
                runs.peak_dense_tflops,
                coalesce(defaults.default_goodput, 1.0)
            ) * counted_flops_share(
                runs.params_active, runs.n_layers, runs.d_model, runs.seq_len
            ),
            default_training_mfu(
                accelerator_inputs.mfu_default,
                runs.precision,
                runs.params_total > runs.params_active,
                defaults.default_mfu_fp8,
                defaults.default_moe_mfu_multiplier
            )
        ) as default_mfu,
        case
            when mfu_group(accelerator_inputs.family) is not null then 'mfu_model'
            when runs.params_active > 0 and coalesce(accelerator_inputs.peak_bf16_dense_tflops,
                    accelerator_inputs.peak_fp16_dense_tflops) > 0
                then coalesce(
                    (select generations.mfu_source from mfu_generation_factors as generations
                     where generations.accelerator_id = accelerator_inputs.accelerator_id
                        and generations.applied_factor is not null),
                    (select factors.mfu_source from mfu_family_factors as factors
                     where factors.family = accelerator_inputs.family),
                    'mfu_model (Hopper)'
                )
            else (case when runs.precision = 'fp8' then 'mfu_fp8'
                else accelerator_inputs.mfu_assumption_key end)
                || (case when runs.params_total > runs.params_active
                    then ' x moe_mfu_multiplier' else '' end)
        end as default_mfu_source,
        plain.value as plain_mfu,
        coalesce(defaults.default_goodput, 1.0) as goodput
    from run_accelerators as runs
    cross join cost_defaults as defaults
    left join cost_assumptions as plain
        on plain.assumption_key = 'mfu_plain'
    left join accelerator_inputs using (accelerator_id)

),

predicted as (

    select
        resolved.*,
        training_flops(
            resolved.params_active, resolved.tokens,
            n_layers := resolved.n_layers, d_model := resolved.d_model,
            seq_len := resolved.seq_len
        ) as flops,
        training_flops(resolved.params_active, resolved.tokens) as flops_6nd,
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
        predicted.n_layers,
        predicted.d_model,
        predicted.seq_len,
        predicted.flops,
        predicted.flops_6nd,
        predicted.peak_dense_tflops,

        ---------- reported
        predicted.reported_gpu_hours,
        predicted.gpu_hours_basis,
        predicted.reported_mfu,
        predicted.reported_mfu_basis,
        predicted.recompute,
        predicted.confidence,
        predicted.confidence_basis,

        ---------- implied by the report
        implied_mfu(predicted.flops, predicted.reported_gpu_hours, predicted.peak_dense_tflops)
            as implied_mfu,
        predicted.peak_bf16_dense_tflops,
        implied_mfu(
            predicted.flops, predicted.reported_gpu_hours, predicted.peak_bf16_dense_tflops
        ) as implied_mfu_bf16,
        predicted.mfu_group,

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

        ---------- predicted by plain 6ND at one utilisation (assumption mfu_plain)
        predicted.plain_mfu,
        gpu_hours_for_flops(
            predicted.flops_6nd, predicted.peak_dense_tflops, predicted.plain_mfu,
            predicted.goodput
        ) as predicted_gpu_hours_plain,
        gpu_hours_for_flops(
            predicted.flops_6nd, predicted.peak_dense_tflops, predicted.plain_mfu,
            predicted.goodput
        ) / predicted.reported_gpu_hours as ratio_plain,

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
        predicted.shape_source_url,
        predicted.note

    from predicted

)

select * from final
order by final.run_id
