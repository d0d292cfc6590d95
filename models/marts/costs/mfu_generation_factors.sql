-- one row per part whose speed an MLPerf Training pair measures against another part
-- (catalog/mfu_factor_pairs.csv, issue 38): the pair of results used, the measured speed ratio,
-- the factor it gives (speed per BF16 peak of the part over the anchor's), and that factor
-- chained down to Hopper (TPU v6e = TPU v5p x f1 = H100 x f2 x f1).
--
-- Which results pair up: the part's and the anchor's valid results (mart training_measured) on
-- the benchmark the catalog names, from the same round where there is one, at the nearest scale
-- (the smallest |ln(accelerators a / accelerators b)|); results tied on both count, their
-- factors' geometric mean is the factor. The chain ends at a Hopper part: the fitted MFU model
-- (mart mfu_model) sets Hopper's level and the other families' factors are against it.
--
-- What is applied: TPU generations, each on the curve of the fitted part its chain reaches
-- first (issue 38: "TPU v4 via A100 bert, v5e and v5p via H100 gpt3, v6e via v5p gpt3"): TPU v4
-- takes the fitted Ampere term times its BERT factor over A100, v5e and v5p Hopper's times
-- their GPT-3 factors over H100, v6e Hopper's times v5p's factor times its own over v5p. No
-- TPU term is fitted: PaLM 540B, the one high-confidence TPU run, is predicted out of sample.
-- The A100's factor is computed and listed but not applied: the Ampere term of the fitted model
-- stands (docs/cost-models.md says why: the BERT pairs ran H100 in FP8 against A100 in FP16;
-- in BF16 terms their factor agrees with the fitted terms for small models, not large ones).
--
-- columns:
--   accelerator_id: the part (catalog id)
--   family: its family (accelerators.family)
--   anchor_id: the part it is measured against
--   benchmark: the MLPerf Training benchmark both ran
--   pairs [pairs]: result pairs used (tied on round and scale)
--   results_used: the pairs, as 'round / submitter / system (accelerators, precision) vs ...'
--   same_round: the pairs come from one round
--   like_for_like_precision: both sides of every pair ran at the same precision class (16-bit
--     or 8-bit); false for the A100 (FP16) vs H100 (FP8) pairs, stated, not corrected
--   measured_speed_ratio [ratio]: tokens per second per accelerator of the part over the
--     anchor's (geometric mean over the pairs)
--   pair_factor [ratio]: measured_speed_ratio / (the part's dense BF16 peak / the anchor's)
--   hopper_factor [ratio]: pair_factor chained down to the Hopper part at the end of the chain
--   chain: the chain in words, e.g. 'google-tpu-v6e = google-tpu-v5p x 0.52 = H100 x 0.96 x 0.52'
--   fitted_anchor_id: the first part of the chain whose family has a fitted term (A100 or H100)
--   anchor_group: that part's group of the fitted model (mfu_group: 'ampere' or 'hopper')
--   applied_factor [ratio]: the factor training_mfu multiplies the fitted anchor's term by: the
--     pair factors chained down to fitted_anchor_id; null when not applied (a part whose family
--     has its own fitted term: the A100)
--   mfu_source: the words gpucost estimate prints for an MFU that uses applied_factor

with recursive

measured_runs as (

    select * from training_measured

),

chain_pairs as (

    select * from stg_curated__mfu_factor_pairs

),

inputs as (

    select * from accelerator_cost_inputs

),

results as (

    select distinct
        measured_runs.round,
        measured_runs.submitter,
        measured_runs.system,
        measured_runs.benchmark,
        measured_runs.accelerator_id,
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

candidates as (

    select
        chain_pairs.accelerator_id,
        chain_pairs.anchor_id,
        chain_pairs.benchmark,
        part.round = anchor.round as same_round,
        (part.precision in ('fp8', 'int8', 'fp4')) = (anchor.precision in ('fp8', 'int8', 'fp4'))
            as like_for_like_precision,
        part.round || ' / ' || part.submitter || ' / ' || part.system || ' ('
            || cast(part.accelerator_count as integer) || ', ' || coalesce(part.precision, '?')
            || ') vs ' || anchor.round || ' / ' || anchor.submitter || ' / ' || anchor.system
            || ' (' || cast(anchor.accelerator_count as integer) || ', '
            || coalesce(anchor.precision, '?') || ')' as result_pair,
        part.tokens_per_second_per_accelerator / anchor.tokens_per_second_per_accelerator
            as speed_ratio,
        part.tokens_per_second_per_accelerator / anchor.tokens_per_second_per_accelerator
            / (part.peak_bf16_dense_tflops / anchor.peak_bf16_dense_tflops) as pair_factor,
        dense_rank() over (
            partition by chain_pairs.accelerator_id
            order by part.round = anchor.round desc,
                round(abs(ln(part.accelerator_count / anchor.accelerator_count)), 6)
        ) as pair_rank
    from chain_pairs
    inner join results as part
        on part.accelerator_id = chain_pairs.accelerator_id
        and part.benchmark = chain_pairs.benchmark
    inner join results as anchor
        on anchor.accelerator_id = chain_pairs.anchor_id
        and anchor.benchmark = chain_pairs.benchmark

),

factors as (

    select
        candidates.accelerator_id,
        candidates.anchor_id,
        candidates.benchmark,
        count(*) as pairs,
        string_agg(candidates.result_pair, '; ' order by candidates.result_pair)
            as results_used,
        bool_and(candidates.same_round) as same_round,
        bool_and(candidates.like_for_like_precision) as like_for_like_precision,
        exp(avg(ln(candidates.speed_ratio))) as measured_speed_ratio,
        exp(avg(ln(candidates.pair_factor))) as pair_factor
    from candidates
    where candidates.pair_rank = 1
    group by candidates.accelerator_id, candidates.anchor_id, candidates.benchmark

),

chained (accelerator_id, hopper_factor, chain_ids, chain_factors, depth) as (

    -- the links whose anchor is a Hopper part: the end of every chain
    select
        factors.accelerator_id,
        factors.pair_factor,
        factors.anchor_id,
        printf('%.2f', factors.pair_factor),
        1
    from factors
    inner join inputs on inputs.accelerator_id = factors.anchor_id
    where inputs.family = 'Hopper'

    union all

    select
        factors.accelerator_id,
        chained.hopper_factor * factors.pair_factor,
        chained.chain_ids,
        chained.chain_factors || ' x ' || printf('%.2f', factors.pair_factor),
        chained.depth + 1
    from factors
    inner join chained on chained.accelerator_id = factors.anchor_id
    where chained.depth < 5

),

-- each part down to the first part of its chain with a fitted term (Ampere or Hopper)
anchored (accelerator_id, fitted_anchor_id, anchor_factor, depth) as (

    select factors.accelerator_id, factors.anchor_id, factors.pair_factor, 1
    from factors
    inner join inputs on inputs.accelerator_id = factors.anchor_id
    where mfu_group(inputs.family) is not null

    union all

    select factors.accelerator_id, anchored.fitted_anchor_id,
        anchored.anchor_factor * factors.pair_factor, anchored.depth + 1
    from factors
    inner join anchored on anchored.accelerator_id = factors.anchor_id
    inner join inputs on inputs.accelerator_id = factors.anchor_id
    where mfu_group(inputs.family) is null and anchored.depth < 5

),

final as (

    select
        factors.accelerator_id,
        inputs.family,
        factors.anchor_id,
        factors.benchmark,
        factors.pairs,
        factors.results_used,
        factors.same_round,
        factors.like_for_like_precision,
        factors.measured_speed_ratio,
        factors.pair_factor,
        chained.hopper_factor,
        factors.accelerator_id || ' = ' || factors.anchor_id || ' x '
            || printf('%.2f', factors.pair_factor)
            || case when chained.depth > 1
                then ' = ' || chained.chain_ids || ' x ' || chained.chain_factors
                else '' end as chain,
        anchored.fitted_anchor_id,
        mfu_group(anchor_inputs.family) as anchor_group,
        case when mfu_group(inputs.family) is null then anchored.anchor_factor end
            as applied_factor,
        case when mfu_group(inputs.family) is null
            then anchor_inputs.family || ' mfu_model x ' || printf('%.2f', anchored.anchor_factor)
                || ' (MLPerf Training: ' || case when anchored.depth = 1
                    then factors.accelerator_id || ' over ' || anchored.fitted_anchor_id
                    else factors.accelerator_id || ' = ' || factors.anchor_id || ' x '
                        || printf('%.2f', factors.pair_factor) || ' = ' || chained.chain_ids
                        || ' x ' || chained.chain_factors end
                || ', ' || factors.benchmark || ')'
        end as mfu_source
    from factors
    inner join chained using (accelerator_id)
    left join anchored using (accelerator_id)
    left join inputs using (accelerator_id)
    left join inputs as anchor_inputs on anchor_inputs.accelerator_id = anchored.fitted_anchor_id

)

select * from final
