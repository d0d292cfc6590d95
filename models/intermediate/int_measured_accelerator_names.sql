-- one row per measured-results source x normalised accelerator name: the catalog accelerator
-- a benchmark's spelling resolves to (catalog/aliases.csv gpu_name aliases). An alias scoped
-- to the source wins, then one scoped to a sibling MLPerf source, then a global one; names
-- are keyed as every alias is (lowercase letters and digits only). The three sources of
-- measured throughput (int_measured_throughput, int_training_results, int_serving_sweeps)
-- resolve their system descriptions here, so the rule is written once.

with

aliases as (

    select * from stg_curated__aliases

),

scopes as (

    -- source, the alias provider it reads, and that scope's rank (lower wins)
    select * from (values
        ('mlperf_results', 'mlperf_results', 0), ('mlperf_results', 'mlperf', 0),
        ('mlperf_results', '', 2),
        ('mlperf_training', 'mlperf_training', 0), ('mlperf_training', 'mlperf_results', 1),
        ('mlperf_training', 'mlperf', 1), ('mlperf_training', '', 2),
        ('inferencex', 'inferencex', 0), ('inferencex', '', 2)
    ) as scope_rows(source, alias_provider, scope_rank)

),

final as (

    select
        scopes.source,
        aliases.alias_key,
        arg_min(aliases.accelerator_id, scopes.scope_rank) as accelerator_id
    from aliases
    inner join scopes
        on scopes.alias_provider = coalesce(aliases.provider, '')
    where aliases.alias_kind = 'gpu_name'
        and aliases.alias_key <> ''
        and aliases.accelerator_id is not null
    group by scopes.source, aliases.alias_key

)

select * from final
