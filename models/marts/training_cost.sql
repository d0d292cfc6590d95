-- one row per training scenario (catalog/training_scenarios.csv) x accelerator x price basis:
-- FLOPs, GPU-hours, wall-clock days, cost, energy, peak power and USD per million tokens,
-- from the macro training_cost_estimate (the same one `gpucost estimate` calls). A scenario
-- that pins an accelerator is evaluated on it only; otherwise on every accelerator with a
-- price. Rows without a price are left out, except for a pinned accelerator (one row with a
-- null price basis: FLOPs, hours and energy still answer the question).

with

scenarios as (

    select * from stg_curated__training_scenarios

),

estimates as (

    select
        scenarios.scenario_id,
        scenarios.question,
        scenarios.accelerator as scenario_accelerator,
        estimate.*
    from scenarios,
        lateral training_cost_estimate(
            params := scenarios.params_active,
            tokens := scenarios.tokens,
            accelerator := scenarios.accelerator,
            params_total := scenarios.params_total,
            tokens_per_param := scenarios.tokens_per_param,
            precision := scenarios.precision,
            mfu := scenarios.mfu,
            goodput := scenarios.goodput,
            n_gpus := scenarios.n_gpus,
            days := scenarios.days,
            n_layers := scenarios.n_layers,
            d_model := scenarios.d_model,
            seq_len := scenarios.seq_len,
            images := scenarios.images,
            tokens_per_image := scenarios.tokens_per_image,
            vision_params := scenarios.vision_params,
            vision_frozen := scenarios.vision_frozen,
            price_per_gpu_hour := scenarios.price_per_gpu_hour
        ) as estimate

)

select * from estimates
where (estimates.price_per_gpu_hour is not null or estimates.scenario_accelerator is not null)
    and estimates.peak_dense_tflops is not null
order by estimates.scenario_id, estimates.accelerator_id, estimates.price_basis
