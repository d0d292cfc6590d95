-- one row per MLPerf Training result in force: all runs of one system on one benchmark of one
-- round (source mlperf_training), scored as MLPerf scores it, with the system's accelerators.
--
-- * runs: the run logs of the fetches in force (int_fetches_in_force; each log is its own
--   stream, a republished log replaces its predecessor);
-- * the score (training_rules.adoc, "Benchmark Results"): drop the fastest and the slowest run,
--   average the rest (olympic_minutes), times the RCP scaling factor of scaling.json
--   (score_minutes; 1 where the result has none). A run that did not end in success counts as
--   the slowest; a result with more than one such run, or fewer than three runs, has no score;
-- * throughput from the successful runs themselves (the README's trap 7: samples to converge
--   differ by run, so tokens / seconds per run, then the mean), never the score;
-- * the system: its system JSON (accelerators_per_node x number_of_nodes, never the log's
--   placeholder platform field), matched by round, submitter and system; accelerator_id
--   by int_measured_accelerator_names (an alias scoped to mlperf_training wins).

with

runs as (

    select * from stg_raw__training_runs

),

scaling as (

    select * from stg_raw__training_scaling_factors

),

descriptions as (

    select * from stg_raw__system_descriptions

),

in_force as (

    select * from int_fetches_in_force

),

accelerator_names as (

    select * from int_measured_accelerator_names
    where int_measured_accelerator_names.source = 'mlperf_training'

),

runs_in_force as (

    select
        runs.*,
        runs.status = 'success' as succeeded,
        row_number() over (
            partition by runs.round, runs.submitter, runs.system, runs.benchmark
            order by runs.status <> 'success', runs.run_seconds, runs.run
        ) as speed_rank,
        count(*) over (
            partition by runs.round, runs.submitter, runs.system, runs.benchmark
        ) as n_runs
    from runs
    inner join in_force using (fetch_id)

),

scored as (

    select
        runs_in_force.round,
        any_value(runs_in_force.division) as division,
        runs_in_force.submitter,
        runs_in_force.system,
        runs_in_force.benchmark,
        count(*) as runs,
        count(*) filter (where runs_in_force.succeeded) as runs_succeeded,
        avg(runs_in_force.run_seconds / 60.0) filter (
            where runs_in_force.speed_rank > 1
                and runs_in_force.speed_rank < runs_in_force.n_runs
        ) as olympic_minutes,
        min(runs_in_force.run_seconds / 60.0) as fastest_run_minutes,
        max(runs_in_force.run_seconds / 60.0) as slowest_run_minutes,
        avg(runs_in_force.tokens) filter (where runs_in_force.succeeded) as tokens_per_run,
        avg(runs_in_force.tokens / runs_in_force.run_seconds)
            filter (where runs_in_force.succeeded) as tokens_per_second,
        any_value(runs_in_force.global_batch_size) as global_batch_size,
        any_value(runs_in_force.seq_len) as seq_len,
        any_value(runs_in_force.tokens_basis) as tokens_basis,
        min(runs_in_force.run_start) as first_run_start,
        max(runs_in_force.run_stop) as observed_at
    from runs_in_force
    group by runs_in_force.round, runs_in_force.submitter, runs_in_force.system,
        runs_in_force.benchmark

),

scaling_in_force as (

    select
        scaling.round,
        scaling.submitter,
        scaling.system,
        scaling.benchmark,
        max(scaling.scaling_factor) as scaling_factor
    from scaling
    inner join in_force using (fetch_id)
    group by all

),

systems as (

    select
        descriptions.round,
        descriptions.submitter,
        descriptions.system,
        any_value(descriptions.system_name) as system_name,
        any_value(descriptions.accelerator_name_raw) as accelerator_name_raw,
        any_value(descriptions.accelerators_per_node) as accelerators_per_node,
        any_value(descriptions.number_of_nodes) as number_of_nodes,
        any_value(descriptions.availability) as availability,
        any_value(descriptions.framework) as framework
    from descriptions
    inner join in_force using (fetch_id)
    where descriptions.source = 'mlperf_training'
    group by all

),

final as (

    select
        ---------- ids
        scored.round,
        scored.division,
        scored.submitter,
        scored.system,
        scored.benchmark,

        ---------- the system
        systems.system_name,
        systems.accelerator_name_raw,
        accelerator_names.accelerator_id,
        systems.accelerators_per_node,
        systems.number_of_nodes,
        systems.accelerators_per_node * systems.number_of_nodes as accelerator_count,
        systems.availability,
        systems.framework,

        ---------- the score
        scored.runs,
        scored.runs_succeeded,
        scored.runs >= 3 and scored.runs - scored.runs_succeeded <= 1 as valid,
        case when scored.runs >= 3 and scored.runs - scored.runs_succeeded <= 1
            then scored.olympic_minutes end as olympic_minutes,
        coalesce(scaling_in_force.scaling_factor, 1.0) as scaling_factor,
        scaling_in_force.scaling_factor is not null as has_scaling_file,
        case when scored.runs >= 3 and scored.runs - scored.runs_succeeded <= 1
            then scored.olympic_minutes * coalesce(scaling_in_force.scaling_factor, 1.0)
        end as score_minutes,
        scored.fastest_run_minutes,
        scored.slowest_run_minutes,

        ---------- what was trained
        scored.tokens_per_run,
        scored.tokens_basis,
        scored.global_batch_size,
        scored.seq_len,
        scored.tokens_per_second,
        scored.tokens_per_second / (systems.accelerators_per_node * systems.number_of_nodes)
            as tokens_per_second_per_accelerator,

        ---------- lineage
        'https://github.com/mlcommons/training_results_' || scored.round || '/tree/main/'
            || scored.submitter || '/results/' || scored.system || '/' || scored.benchmark
            as source_url,
        scored.first_run_start,
        scored.observed_at

    from scored
    left join scaling_in_force using (round, submitter, system, benchmark)
    left join systems using (round, submitter, system)
    left join accelerator_names
        on accelerator_names.alias_key
            = name_key(systems.accelerator_name_raw)

)

select * from final
