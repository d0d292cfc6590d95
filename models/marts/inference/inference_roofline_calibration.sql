-- one row per comparable Offline measurement (inference_throughput: closed division,
-- available, valid) of a benchmark whose model shape is catalogued (catalog/
-- mlperf_benchmarks.csv) on a catalogued accelerator: the measured per-GPU throughput beside
-- the roofline (inference_cost_estimate) of the same model on the same accelerator at the
-- serving defaults of a bare `gpucost estimate --inference` (batch
-- inference_serving_batch_size, weights at inference_serving_weight_bits, KV cache of a
-- 1,024-token context at bf16), and the achieved fraction of that roofline. It is how the
-- serving defaults were chosen and how far to trust them: an achieved fraction between 0.5
-- and 2 means the bare estimate is within 2x of measured throughput economics.
--
-- columns:
--   benchmark: the model benchmarked (inference_throughput.benchmark)
--   accuracy_target: '99', '99.9' or ''
--   round: MLPerf Inference round
--   submitter: the submitting organisation
--   system: the system id
--   accelerator_id: the catalog accelerator measured
--   software_family: TensorRT-LLM, vLLM, SGLang, PyTorch, ...
--   measured_tokens_per_second_per_gpu [tokens/s per GPU]: inference_throughput
--     .tokens_per_second_per_accelerator
--   roofline_tokens_per_second_per_gpu [tokens/s per GPU]: inference_cost_estimate's
--     output_tokens_per_second_per_gpu for the model at the serving defaults
--   roofline_decode_bound: memory or compute: what bounds the roofline decode step
--   batch_size [sequences]: the batch of the roofline (default_inference_serving_batch_size)
--   precision: the weight precision of the roofline (fp8 for 8 bits)
--   achieved_fraction [ratio]: measured_tokens_per_second_per_gpu /
--     roofline_tokens_per_second_per_gpu

with

measured as (

    select * from inference_throughput
    where inference_throughput.valid
        and inference_throughput.division = 'closed'
        and inference_throughput.availability = 'available'
        and inference_throughput.scenario = 'Offline'
        and inference_throughput.accelerator_id is not null
        and inference_throughput.tokens_per_second_per_accelerator > 0

),

benchmarks as (

    select * from stg_curated__mlperf_benchmarks
    where stg_curated__mlperf_benchmarks.params_active > 0

),

defaults as (

    select
        cost_defaults.default_inference_serving_batch_size as batch_size,
        cost_defaults.default_inference_serving_precision as precision
    from cost_defaults

),

rooflines as (

    select distinct
        measured.accelerator_id,
        benchmarks.benchmark,
        defaults.batch_size,
        defaults.precision,
        estimate.output_tokens_per_second_per_gpu,
        estimate.decode_bound
    from (select distinct accelerator_id, benchmark from measured) as measured
    inner join benchmarks
        on benchmarks.benchmark = measured.benchmark
    cross join defaults,
        lateral inference_cost_estimate(
            params := benchmarks.params_active,
            params_total := benchmarks.params_total,
            accelerator := measured.accelerator_id,
            precision := defaults.precision,
            n_layers := benchmarks.n_layers,
            n_kv_heads := benchmarks.n_kv_heads,
            head_dim := benchmarks.head_dim,
            context_tokens := 1024,
            batch_size := defaults.batch_size
        ) as estimate

),

final as (

    select
        measured.benchmark,
        measured.accuracy_target,
        measured.round,
        measured.submitter,
        measured.system,
        measured.accelerator_id,
        measured.software_family,
        measured.tokens_per_second_per_accelerator as measured_tokens_per_second_per_gpu,
        rooflines.output_tokens_per_second_per_gpu as roofline_tokens_per_second_per_gpu,
        rooflines.decode_bound as roofline_decode_bound,
        rooflines.batch_size,
        rooflines.precision,
        measured.tokens_per_second_per_accelerator
            / rooflines.output_tokens_per_second_per_gpu as achieved_fraction
    from measured
    inner join rooflines using (accelerator_id, benchmark)
    where rooflines.output_tokens_per_second_per_gpu > 0

)

select * from final
order by final.benchmark, final.accelerator_id, final.round, final.submitter
