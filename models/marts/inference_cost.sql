-- one row per inference scenario (catalog/inference_scenarios.csv) x accelerator x price
-- basis: replica size, decode and prefill throughput and USD per million output / input
-- tokens from the roofline macro inference_cost_estimate (the same one `gpucost estimate
-- --inference` calls). Every accelerator with a price and a dense peak at a usable precision.

with

scenarios as (

    select * from stg_curated__inference_scenarios

),

estimates as (

    select
        scenarios.scenario_id,
        scenarios.question,
        estimate.*
    from scenarios,
        lateral inference_cost_estimate(
            params := scenarios.params_active,
            params_total := scenarios.params_total,
            precision := scenarios.precision,
            kv_precision := scenarios.kv_precision,
            n_layers := scenarios.n_layers,
            n_kv_heads := scenarios.n_kv_heads,
            head_dim := scenarios.head_dim,
            context_tokens := scenarios.context_tokens,
            batch_size := scenarios.batch_size
        ) as estimate

)

select * from estimates
where estimates.price_per_gpu_hour is not null
    and estimates.peak_dense_tflops is not null
order by estimates.scenario_id, estimates.accelerator_id, estimates.price_basis
