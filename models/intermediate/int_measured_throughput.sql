-- one row per measured benchmark result in force: system x benchmark (x accuracy target) x
-- scenario x round, with the system's accelerators and software (source mlperf_results).
--
-- * in force: the rows of the fetch in force for each stream (int_fetches_in_force); a
--   results file published again at the same path replaces its predecessor;
-- * the system: the description in force for (round, division, submitter, system), keyed by
--   submitter too (the same system folder exists under several submitters), else the
--   curated row of catalog/mlperf_systems.csv (systems whose JSON is not published). The
--   count is accelerators_per_node x number_of_nodes, never the folder name;
-- * accelerator_id: the submitter's spelling resolved by int_measured_accelerator_names (gpu_name
--   aliases; one scoped to mlperf_results or mlperf wins over a global one); null when no
--   alias matches;
-- * software_family: the serving stack named first in the framework text (TensorRT-LLM for
--   NVIDIA's "TensorRT ..." submissions, vLLM (also llm-d), SGLang, PyTorch, Saxml); null
--   when none is named ("N/A"). Like-for-like pairs prefer the same family.

with

observations as (

    select * from stg_raw__throughput_observations

),

descriptions as (

    select * from stg_raw__system_descriptions

),

curated_systems as (

    select * from stg_curated__mlperf_systems

),

in_force as (

    select * from int_fetches_in_force

),

fetches as (

    select * from stg_raw__fetches

),

accelerator_names as (

    select * from int_measured_accelerator_names
    where int_measured_accelerator_names.source = 'mlperf_results'

),

rounds as (

    select * from stg_curated__mlperf_rounds
    where stg_curated__mlperf_rounds.suite = 'inference'

),

results as (

    select
        observations.fetch_id,
        observations.round,
        observations.division,
        observations.submitter,
        observations.system,
        observations.benchmark,
        observations.accuracy_target,
        observations.scenario,
        bool_and(observations.valid) as valid,
        max(observations.value) filter (where observations.metric = 'tokens_per_second')
            as tokens_per_second,
        max(observations.value) filter (where observations.metric = 'samples_per_second')
            as samples_per_second,
        max(observations.ttft_limit_ms) as ttft_limit_ms,
        max(observations.tpot_limit_ms) as tpot_limit_ms,
        max(observations.ttft_mean_ms) as ttft_mean_ms,
        max(observations.tpot_mean_ms) as tpot_mean_ms,
        max(observations.observed_at) as observed_at
    from observations
    inner join in_force using (fetch_id)
    group by all

),

loaded_systems as (

    select
        descriptions.round,
        descriptions.division,
        descriptions.submitter,
        descriptions.system,
        descriptions.system_name,
        descriptions.accelerator_name_raw,
        descriptions.accelerators_per_node,
        descriptions.number_of_nodes,
        descriptions.availability,
        descriptions.framework,
        'system_description' as count_basis,
        cast(null as varchar) as system_source_url
    from descriptions
    inner join in_force using (fetch_id)
    where descriptions.source <> 'mlperf_training'  -- training systems: int_training_results

),

systems as (

    select * from loaded_systems
    union all
    select
        curated_systems.round,
        curated_systems.division,
        curated_systems.submitter,
        curated_systems.system,
        cast(null as varchar) as system_name,
        curated_systems.accelerator_name_raw,
        curated_systems.accelerators_per_node,
        curated_systems.number_of_nodes,
        curated_systems.availability,
        curated_systems.framework,
        'curated' as count_basis,
        curated_systems.source_url as system_source_url
    from curated_systems
    anti join loaded_systems using (round, division, submitter, system)

),

final as (

    select
        ---------- ids
        results.round,
        results.division,
        results.submitter,
        results.system,
        results.benchmark,
        results.accuracy_target,
        results.scenario,

        ---------- the system
        systems.system_name,
        systems.accelerator_name_raw,
        accelerator_names.accelerator_id,
        systems.accelerators_per_node,
        systems.number_of_nodes,
        systems.accelerators_per_node * systems.number_of_nodes as accelerator_count,
        systems.count_basis,
        systems.availability,
        systems.framework,
        (
            select stacks.family
            from (values
                ('tensorrt', 'TensorRT-LLM'), ('vllm', 'vLLM'), ('llm-d', 'vLLM'),
                ('sglang', 'SGLang'), ('pytorch', 'PyTorch'), ('saxml', 'Saxml')
            ) as stacks(keyword, family)
            where strpos(lower(systems.framework), stacks.keyword) > 0
            order by strpos(lower(systems.framework), stacks.keyword)
            limit 1
        ) as software_family,

        ---------- the measurement
        results.valid,
        results.tokens_per_second,
        results.samples_per_second,
        results.tokens_per_second / results.samples_per_second as output_tokens_per_sample,
        results.tokens_per_second
            / (systems.accelerators_per_node * systems.number_of_nodes)
            as tokens_per_second_per_accelerator,
        results.ttft_limit_ms,
        results.tpot_limit_ms,
        results.ttft_mean_ms,
        results.tpot_mean_ms,
        -- the speed one user sees: measured (1000 / mean TPOT) where the summary gives it,
        -- else the floor the p99 TPOT limit guarantees (1000 / limit); Offline has neither
        coalesce(1000.0 / results.tpot_mean_ms, 1000.0 / results.tpot_limit_ms)
            as tokens_per_second_per_user,
        case
            when results.tpot_mean_ms > 0 then 'measured'
            when results.tpot_limit_ms > 0 then 'tpot_bound'
        end as interactivity_basis,

        ---------- lineage
        results.fetch_id,
        case
            when fetches.url like 'http%' then fetches.url
            else 'https://github.com/mlcommons/inference_results_' || results.round
                || '/tree/main/' || results.division || '/' || results.submitter
                || '/results/' || results.system
        end as source_url,
        systems.system_source_url,
        rounds.published_on as round_published_on,
        rounds.source_url as round_source_url,
        results.observed_at

    from results
    left join systems using (round, division, submitter, system)
    left join accelerator_names
        on accelerator_names.alias_key
            = name_key(systems.accelerator_name_raw)
    left join fetches
        on fetches.fetch_id = results.fetch_id
    left join rounds
        on rounds.round = results.round

)

select * from final
