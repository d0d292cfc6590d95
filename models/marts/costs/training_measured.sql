-- one row per MLPerf Training result x price basis: the measured speed of a system training an
-- LLM benchmark (closed division, peer-reviewed), its measured utilisation, and what training
-- the benchmark cost at each price basis of its accelerator. Source mlperf_training, scored as
-- MLPerf scores it (int_training_results); the benchmark's model FLOPs per token from
-- catalog/mlperf_training_benchmarks.csv (6N pretraining, about 4N for LoRA fine-tuning); the
-- precision the run used from catalog/mlperf_training_precision.csv (read in each submitter's
-- config). A result whose accelerator has no price keeps one row with a null price basis.
--
-- columns:
--   round: MLPerf Training round (v4.0, v4.1, v5.0, v5.1)
--   division: closed or open (all recorded results are closed)
--   submitter: the submitting organisation (results folder)
--   system: the system id (results/<system>/, systems/<system>.json)
--   benchmark: gpt3, llama2_70b_lora, llama31_8b or llama31_405b
--   model: the model the benchmark trains (mlperf_training_benchmarks.model)
--   training_kind: pretraining or fine_tuning_lora
--   accelerator_name_raw: the accelerator as the system JSON spells it
--   accelerator_id: the catalog accelerator it resolves to (aliases); null when none
--   family: the accelerator's family (accelerators.family)
--   accelerator_count [accelerators]: accelerators_per_node x number_of_nodes of the system JSON
--   scale_class: node (at most 8 accelerators), cluster (9 to 1,024) or large (more): results
--     are compared within a class only (per-accelerator speed falls with scale)
--   availability: available (on-premise or cloud) or preview, as the system JSON says
--   framework: the software stack the system JSON names
--   precision: the numeric precision the run's matmuls used (fp8, fp4, int8, bf16), from the
--     submitter's config; null when not recorded
--   precision_source_url: the config file the precision was read in
--   runs [runs]: run logs in force for the result
--   valid: at least three runs and at most one that did not end in success
--   olympic_minutes [minutes]: mean run time without the fastest and the slowest run
--   scaling_factor [ratio]: the RCP normalisation factor of scaling.json (1 when absent)
--   score_minutes [minutes]: olympic_minutes x scaling_factor, MLPerf's official time to train
--   tokens_per_run [tokens]: tokens trained per successful run (mean): samples x sequence
--     length, for gpt3 the logged token count
--   tokens_per_second_per_accelerator [tokens/s]: mean over successful runs of tokens / run
--     seconds, per accelerator
--   model_flops_per_token [FLOP]: model_flops_per_token_per_param x params_active (6N or 4N)
--   model_tflops_per_accelerator [TFLOP/s]: model FLOPs per second per accelerator while
--     training (attention not counted)
--   peak_dense_tflops [TFLOP/s]: the accelerator's dense peak at the run's precision
--   mfu [fraction]: measured in-run model FLOPs utilisation: model_tflops_per_accelerator /
--     peak_dense_tflops (at the run's precision)
--   peak_bf16_dense_tflops [TFLOP/s]: the accelerator's dense BF16 peak
--   mfu_bf16_equivalent [fraction]: model_tflops_per_accelerator / peak_bf16_dense_tflops: above
--     the BF16 MFU a BF16 run reaches when the run used FP8 or FP4
--   gpus_per_instance [GPUs]: the instance size the result is priced at: its accelerators per
--     node rounded up to 1, 2, 4 or 8 (at most 8)
--   price_basis: a price basis of price_bases_by_size at that size; null when none
--   basis_kind: observed, estimated or owned (price_bases.basis_kind)
--   provider: the provider behind the basis; null for the median, owned and analyst bases
--   sku: the offer behind the basis
--   price_per_gpu_hour [USD per GPU-hour]: the basis price of one accelerator-hour
--   price_observed_at [timestamp (UTC)]: when the basis price was observed
--   gpu_hours [GPU-hours]: accelerator_count x score_minutes / 60
--   cost_usd [USD]: gpu_hours x price_per_gpu_hour: what training the benchmark to its target
--     cost at this basis
--   usd_per_million_tokens [USD per million tokens]: price_per_gpu_hour /
--     (tokens_per_second_per_accelerator x 3600) x 10^6
--   source_url: the result's folder in the MLCommons results repository
--   observed_at [timestamp (UTC)]: when the result's last run stopped

with

results as (

    select * from int_training_results

),

benchmarks as (

    select * from stg_curated__mlperf_training_benchmarks

),

precisions as (

    select * from stg_curated__mlperf_training_precision

),

inputs as (

    select * from accelerator_cost_inputs

),

bases as (

    select * from price_bases_by_size

),

measured as (

    select
        results.*,
        benchmarks.model,
        benchmarks.training_kind,
        inputs.family,
        case
            when results.accelerator_count <= 8 then 'node'
            when results.accelerator_count <= 1024 then 'cluster'
            else 'large'
        end as scale_class,
        precisions.precision,
        precisions.source_url as precision_source_url,
        benchmarks.model_flops_per_token_per_param * benchmarks.params_active
            as model_flops_per_token,
        benchmarks.model_flops_per_token_per_param * benchmarks.params_active
            * results.tokens_per_second_per_accelerator / 1e12 as model_tflops_per_accelerator,
        precision_peak_tflops(
            precisions.precision,
            inputs.peak_bf16_dense_tflops,
            inputs.peak_fp16_dense_tflops,
            inputs.peak_fp8_dense_tflops,
            inputs.peak_fp4_dense_tflops,
            inputs.peak_int8_dense_tflops
        ) as peak_dense_tflops,
        inputs.peak_bf16_dense_tflops,
        case
            when least(results.accelerators_per_node, 8) <= 1 then 1
            when least(results.accelerators_per_node, 8) <= 2 then 2
            when least(results.accelerators_per_node, 8) <= 4 then 4
            else 8
        end as gpus_per_instance
    from results
    left join benchmarks using (benchmark)
    left join precisions using (round, submitter, system, benchmark)
    left join inputs using (accelerator_id)

),

priced as (

    select
        measured.*,
        bases.price_basis,
        bases.basis_kind,
        bases.provider,
        bases.sku,
        bases.price_per_gpu_hour,
        bases.observed_at as price_observed_at
    from measured
    left join bases
        on bases.accelerator_id = measured.accelerator_id
        and (bases.min_gpus_per_instance is null
            or bases.min_gpus_per_instance <= measured.gpus_per_instance)
    -- per basis, the offers of the size the system has, else the closest smaller size
    qualify row_number() over (
        partition by measured.round, measured.submitter, measured.system, measured.benchmark,
            bases.price_basis
        order by bases.min_gpus_per_instance desc nulls last
    ) = 1

),

final as (

    select
        ---------- ids
        priced.round,
        priced.division,
        priced.submitter,
        priced.system,
        priced.benchmark,
        priced.model,
        priced.training_kind,

        ---------- the system
        priced.accelerator_name_raw,
        priced.accelerator_id,
        priced.family,
        priced.accelerator_count,
        priced.scale_class,
        priced.availability,
        priced.framework,
        priced.precision,
        priced.precision_source_url,

        ---------- the measurement
        priced.runs,
        priced.valid,
        priced.olympic_minutes,
        priced.scaling_factor,
        priced.score_minutes,
        priced.tokens_per_run,
        priced.tokens_per_second_per_accelerator,
        priced.model_flops_per_token,
        priced.model_tflops_per_accelerator,
        priced.peak_dense_tflops,
        priced.model_tflops_per_accelerator / priced.peak_dense_tflops as mfu,
        priced.peak_bf16_dense_tflops,
        priced.model_tflops_per_accelerator / priced.peak_bf16_dense_tflops
            as mfu_bf16_equivalent,

        ---------- the cost at each price basis
        priced.gpus_per_instance,
        priced.price_basis,
        priced.basis_kind,
        priced.provider,
        priced.sku,
        priced.price_per_gpu_hour,
        priced.price_observed_at,
        priced.accelerator_count * priced.score_minutes / 60.0 as gpu_hours,
        priced.accelerator_count * priced.score_minutes / 60.0 * priced.price_per_gpu_hour
            as cost_usd,
        priced.price_per_gpu_hour / (priced.tokens_per_second_per_accelerator * 3600) * 1e6
            as usd_per_million_tokens,

        ---------- lineage
        priced.source_url,
        priced.observed_at

    from priced

)

select * from final
