-- guards: every accelerator named by a training scenario, an inference scenario or a
-- published run resolves through accelerator_aliases to an accelerator with a dense peak at
-- the precision it asks for; every run has its reported GPU-hours, parameters and tokens.

with

aliases as (

    select * from accelerator_aliases

),

named as (

    select
        'training_scenarios' as catalog_file,
        scenarios.scenario_id as row_id,
        scenarios.accelerator,
        scenarios.accelerator_key
    from stg_curated__training_scenarios as scenarios
    where scenarios.accelerator is not null

    union all

    select
        'inference_scenarios' as catalog_file,
        inference.scenario_id as row_id,
        inference.accelerator,
        inference.accelerator_key
    from stg_curated__inference_scenarios as inference
    where inference.accelerator is not null

    union all

    select
        'inference_scenarios' as catalog_file,
        inference.scenario_id as row_id,
        inference.baseline_accelerator as accelerator,
        inference.baseline_accelerator_key as accelerator_key
    from stg_curated__inference_scenarios as inference
    where inference.baseline_accelerator is not null

    union all

    select
        'training_runs' as catalog_file,
        runs.run_id as row_id,
        runs.accelerator,
        runs.accelerator_key
    from stg_curated__training_runs as runs

),

unresolved as (

    select
        named.catalog_file,
        named.row_id,
        named.accelerator,
        'accelerator does not resolve' as problem
    from named
    anti join aliases
        on aliases.alias_key = named.accelerator_key

),

incomplete_runs as (

    select
        'training_runs' as catalog_file,
        validation.run_id as row_id,
        validation.accelerator,
        'no dense peak, GPU-hours, parameters or tokens' as problem
    from validation
    where validation.accelerator_id is not null
        and (
            validation.peak_dense_tflops is null
            or validation.reported_gpu_hours is null
            or validation.params_active is null
            or validation.tokens is null
        )

)

select * from unresolved
union all
select * from incomplete_runs
order by 1, 2
