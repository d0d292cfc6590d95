-- one row per accelerator family: how its in-run MFU relates to Hopper's, so that every family
-- is estimated on one footing (macro training_mfu). The in-run MFU of a training run is the
-- calibrated MFU model's (mart mfu_model: fitted on published runs' GPU-hours, divided by the
-- goodput) for Ampere and Hopper; for every other family it is Hopper's at the same model
-- size and precision times this family's factor (a part with its own MLPerf pair, the TPU
-- generations of mart mfu_generation_factors, takes that pair's factor instead):
--
-- * measured (mfu_basis 'mlperf_training'): the geometric mean, over MLPerf Training results of
--   the family and of Hopper on the same benchmark, scale class and precision (mart
--   training_measured), of the ratio of their measured tokens per second per accelerator
--   divided by the ratio of their dense BF16 peaks;
-- * else (mfu_basis 'catalog'): the ratio of the cited generation defaults (the family's
--   mfu_default over the catalog's mfu_hopper, cost-methods.md §1.5), over the family's parts
--   without a pair of their own (TPU v2 and v3 when the MLPerf results are loaded).
--
-- columns:
--   family: the accelerator family (accelerators.family)
--   mfu_basis: 'mfu_model' (the fitted model has its own term: Ampere, Hopper),
--     'mlperf_training' (factor measured against Hopper) or 'catalog' (cited defaults' ratio)
--   hopper_factor [ratio]: in-run MFU of the family over Hopper's at the same model size and
--     precision; 1 for the fitted families (their own terms apply)
--   pairs [pairs]: MLPerf result pairs (family x Hopper) the factor is the mean of
--   min_pair_factor [ratio]: the lowest of those pairs' factors
--   max_pair_factor [ratio]: the highest of those pairs' factors
--   benchmarks: the MLPerf benchmarks the pairs are on
--   mfu_source: the words gpucost estimate prints for where an estimate's MFU comes from

with

inputs as (

    select * from accelerator_cost_inputs

),

measured_runs as (

    select * from training_measured

),

assumptions as (

    select * from cost_assumptions

),

results as (

    select distinct
        measured_runs.round,
        measured_runs.submitter,
        measured_runs.system,
        measured_runs.benchmark,
        measured_runs.family,
        measured_runs.scale_class,
        measured_runs.precision,
        measured_runs.tokens_per_second_per_accelerator,
        measured_runs.peak_bf16_dense_tflops
    from measured_runs
    where measured_runs.valid
        and measured_runs.family is not null
        and measured_runs.precision is not null
        and measured_runs.tokens_per_second_per_accelerator > 0
        and measured_runs.peak_bf16_dense_tflops > 0

),

pairs as (

    select
        results.family,
        results.benchmark,
        (results.tokens_per_second_per_accelerator / hopper.tokens_per_second_per_accelerator)
            / (results.peak_bf16_dense_tflops / hopper.peak_bf16_dense_tflops) as pair_factor
    from results
    inner join results as hopper
        on hopper.family = 'Hopper'
        and hopper.benchmark = results.benchmark
        and hopper.scale_class = results.scale_class
        and hopper.precision = results.precision
    where results.family not in ('Hopper', 'Ampere', 'TPU')

),

measured_factors as (

    select
        pairs.family,
        exp(avg(ln(pairs.pair_factor))) as hopper_factor,
        count(*) as pairs,
        min(pairs.pair_factor) as min_pair_factor,
        max(pairs.pair_factor) as max_pair_factor,
        string_agg(distinct pairs.benchmark, ', ' order by pairs.benchmark) as benchmarks
    from pairs
    group by pairs.family

),

families as (

    select
        inputs.family,
        max(inputs.mfu_default) as mfu_default,
        max(inputs.mfu_assumption_key) as mfu_assumption_key
    from inputs
    where inputs.family is not null
        and inputs.accelerator_id not in (
            select generations.accelerator_id from mfu_generation_factors as generations
            where generations.applied_factor is not null
        )
    group by inputs.family

),

final as (

    select
        families.family,
        case
            when families.family in ('Ampere', 'Hopper') then 'mfu_model'
            when measured_factors.family is not null then 'mlperf_training'
            else 'catalog'
        end as mfu_basis,
        case
            when families.family in ('Ampere', 'Hopper') then 1.0
            when measured_factors.family is not null then measured_factors.hopper_factor
            else families.mfu_default / (
                select assumptions.value from assumptions
                where assumptions.assumption_key = 'mfu_hopper'
            )
        end as hopper_factor,
        coalesce(measured_factors.pairs, 0) as pairs,
        measured_factors.min_pair_factor,
        measured_factors.max_pair_factor,
        measured_factors.benchmarks,
        case
            when families.family in ('Ampere', 'Hopper') then 'mfu_model'
            when measured_factors.family is not null
                then 'Hopper mfu_model x ' || printf('%.2f', measured_factors.hopper_factor)
                    || ' (MLPerf Training, ' || measured_factors.pairs || ' pairs)'
            else 'Hopper mfu_model x ' || printf('%.2f', families.mfu_default / (
                select assumptions.value from assumptions
                where assumptions.assumption_key = 'mfu_hopper'
            )) || ' (' || families.mfu_assumption_key || ' / mfu_hopper)'
        end as mfu_source
    from families
    left join measured_factors using (family)

)

select * from final
