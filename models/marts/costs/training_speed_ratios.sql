-- one row per pair of MLPerf Training results of two accelerator classes (a family; each TPU
-- generation is a class of its own) on the same benchmark and scale class, and every pair a
-- part's speed factor is taken from (mart mfu_generation_factors, whatever its scale class): the per-accelerator speed ratio MLPerf measured beside the one a
-- default (BF16) estimate implies, dense BF16 peak x in-run MFU (macro training_mfu at the
-- benchmark's model size) of each. Like for like only when both ran at the same precision
-- (FP8 doubles BF16's dense peak on every part compared, so the ratios carry over); pairs at
-- two precisions are listed and not judged. docs/cost-models.md shows this table.
--
-- columns:
--   benchmark: the MLPerf Training benchmark both results ran
--   scale_class: node, cluster or large (training_measured.scale_class) of the first result
--   accelerator_a: the first result's accelerator (catalog id)
--   family_a: its family
--   result_a: round / submitter / system of the first result
--   precision_a: the precision the first result ran at
--   accelerator_b: the second result's accelerator
--   family_b: its family
--   result_b: round / submitter / system of the second result
--   precision_b: the precision the second result ran at
--   like_for_like: both results ran at the same precision
--   measured_ratio [ratio]: tokens per second per accelerator of a over b, as measured
--   estimated_ratio [ratio]: (peak_bf16 x MFU) of a over b, as a default estimate computes them
--   estimate_over_measured [ratio]: estimated_ratio / measured_ratio
--   within_30pct: estimate_over_measured within 0.7-1.3
--   sets_factor: the pair is one a part's speed factor is taken from (mfu_generation_factors)

with

measured_runs as (

    select * from training_measured

),

benchmarks as (

    select * from stg_curated__mlperf_training_benchmarks

),

defaults as (

    select * from cost_defaults

),

generation_pairs as (

    select * from mfu_generation_factors

),

results as (

    select distinct
        measured_runs.round || ' / ' || measured_runs.submitter || ' / ' || measured_runs.system
            as result,
        measured_runs.benchmark,
        measured_runs.scale_class,
        measured_runs.accelerator_id,
        measured_runs.family,
        case when measured_runs.family = 'TPU' then measured_runs.accelerator_id
            else measured_runs.family end as speed_class,
        measured_runs.accelerator_count,
        measured_runs.precision,
        measured_runs.tokens_per_second_per_accelerator,
        measured_runs.peak_bf16_dense_tflops
    from measured_runs
    where measured_runs.valid
        and measured_runs.accelerator_id is not null
        and measured_runs.tokens_per_second_per_accelerator > 0
        and measured_runs.peak_bf16_dense_tflops > 0

),

estimated as (

    select
        results.*,
        results.peak_bf16_dense_tflops * training_mfu(
            results.accelerator_id, results.family, benchmarks.params_active, false, 'bf16',
            results.peak_bf16_dense_tflops, results.peak_bf16_dense_tflops,
            (select defaults.default_goodput from defaults)
        ) as estimated_tflops
    from results
    inner join benchmarks using (benchmark)

),

final as (

    select
        a.benchmark,
        a.scale_class,
        a.accelerator_id as accelerator_a,
        a.family as family_a,
        a.result as result_a,
        a.precision as precision_a,
        b.accelerator_id as accelerator_b,
        b.family as family_b,
        b.result as result_b,
        b.precision as precision_b,
        a.precision = b.precision as like_for_like,
        a.tokens_per_second_per_accelerator / b.tokens_per_second_per_accelerator
            as measured_ratio,
        a.estimated_tflops / b.estimated_tflops as estimated_ratio,
        (a.estimated_tflops / b.estimated_tflops)
            / (a.tokens_per_second_per_accelerator / b.tokens_per_second_per_accelerator)
            as estimate_over_measured,
        (a.estimated_tflops / b.estimated_tflops)
            / (a.tokens_per_second_per_accelerator / b.tokens_per_second_per_accelerator)
            between 0.7 and 1.3 as within_30pct,
        coalesce(used.sets_factor, false) as sets_factor
    from estimated as a
    inner join estimated as b
        on b.benchmark = a.benchmark
        and b.speed_class > a.speed_class
    -- the pairs a factor is taken from: the part's and the anchor's results, as listed there
    left join (
        select
            generation_pairs.accelerator_id,
            generation_pairs.anchor_id,
            generation_pairs.benchmark,
            unnest(string_split(generation_pairs.results_used, '; ')) as result_pair,
            true as sets_factor
        from generation_pairs
    ) as used
        on used.benchmark = a.benchmark
        and ((used.accelerator_id = a.accelerator_id and used.anchor_id = b.accelerator_id
                and used.result_pair like a.result || ' (%) vs ' || b.result || ' (%)')
            or (used.accelerator_id = b.accelerator_id and used.anchor_id = a.accelerator_id
                and used.result_pair like b.result || ' (%) vs ' || a.result || ' (%)'))
    where b.scale_class = a.scale_class or used.sets_factor

)

select * from final
