-- one row per accelerator x precision x price_basis: USD per 10^18 FLOP (or int8 OP) at the
-- dense peak and at the assumed utilisation, and purchase USD per TFLOP/s.
--
-- * precision: fp64, fp64_matrix, fp32, tf32, bf16, fp16, fp8, int8, fp4, where the
--   accelerator has that dense throughput.
-- * price_basis: the hourly bases of int_price_bases (on_demand_min, on_demand_median,
--   spot_min, ...) plus 'purchase'; 'purchase' rows have null hourly columns.
-- * usd_per_eflop_peak = price_per_gpu_hour / (peak_dense_tflops * 1e12 * 3600) * 1e18
-- * usd_per_eflop_effective = usd_per_eflop_peak / utilisation (assumption default_utilisation)
-- * usd_per_tflops_purchase = purchase_price_usd / peak_dense_tflops, on every row.
--
-- columns:
--   provider: the provider behind the price basis (the cheapest one for <pricing_model>_min);
--     null for on_demand_median and purchase
--   peak_dense_tflops [TFLOP/s (TOP/s for int8)]: dense peak throughput at this precision
--   utilisation [fraction]: assumed utilisation (MFU) behind usd_per_eflop_effective
--     (assumption default_utilisation); null on 'purchase' rows

with

accelerator_specs as (

    select * from accelerators

),

cost_bases as (

    select * from int_cost_bases

),

assumptions as (

    select * from stg_curated__assumptions

),

utilisation as (

    select max(assumptions.value) as utilisation
    from assumptions
    where assumptions.assumption_key = 'default_utilisation'

),

throughput_wide as (

    select
        accelerator_specs.accelerator_id,
        accelerator_specs.peak_fp64_dense_tflops,
        accelerator_specs.peak_fp64_matrix_dense_tflops,
        accelerator_specs.peak_fp32_dense_tflops,
        accelerator_specs.peak_tf32_dense_tflops,
        accelerator_specs.peak_bf16_dense_tflops,
        accelerator_specs.peak_fp16_dense_tflops,
        accelerator_specs.peak_fp8_dense_tflops,
        accelerator_specs.peak_int8_dense_tflops,
        accelerator_specs.peak_fp4_dense_tflops
    from accelerator_specs

),

throughput_long as (

    unpivot throughput_wide
    on
        peak_fp64_dense_tflops,
        peak_fp64_matrix_dense_tflops,
        peak_fp32_dense_tflops,
        peak_tf32_dense_tflops,
        peak_bf16_dense_tflops,
        peak_fp16_dense_tflops,
        peak_fp8_dense_tflops,
        peak_int8_dense_tflops,
        peak_fp4_dense_tflops
    into name metric value peak_dense_tflops

),

throughput as (

    select
        throughput_long.accelerator_id,
        regexp_extract(throughput_long.metric, '^peak_(.+)_dense_tflops$', 1) as precision,
        throughput_long.peak_dense_tflops
    from throughput_long
    where throughput_long.peak_dense_tflops > 0

),

final as (

    select
        throughput.accelerator_id,
        throughput.precision,
        throughput.peak_dense_tflops,
        cost_bases.price_basis,
        cost_bases.provider,
        cost_bases.source,
        cost_bases.sku,
        cost_bases.region,
        cost_bases.fetch_id,
        cost_bases.source_url,
        cost_bases.price_per_gpu_hour,
        cost_bases.currency,
        cost_bases.observed_at,
        case
            when cost_bases.price_per_gpu_hour is not null then utilisation.utilisation
        end as utilisation,
        cost_bases.price_per_gpu_hour
            / (throughput.peak_dense_tflops * 1e12 * 3600) * 1e18 as usd_per_eflop_peak,
        cost_bases.price_per_gpu_hour
            / (throughput.peak_dense_tflops * 1e12 * 3600) * 1e18
            / nullif(utilisation.utilisation, 0) as usd_per_eflop_effective,
        cost_bases.purchase_price_usd,
        cost_bases.purchase_price_usd / throughput.peak_dense_tflops as usd_per_tflops_purchase
    from throughput
    inner join cost_bases using (accelerator_id)
    cross join utilisation

)

select * from final
order by final.accelerator_id, final.precision, final.price_basis
