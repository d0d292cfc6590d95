-- one row: the catalog assumptions the cost macros fall back on, one column each
-- (default_<assumption key>; null when the catalog lacks the key). The macros join this row
-- once instead of looking every key up (a lookup per key would be planned per call). What
-- each figure means and where it comes from is in cost_assumptions.

with

assumptions as (

    select * from cost_assumptions

),

final as (

    select
        max(assumptions.value) filter (where assumptions.assumption_key = 'goodput')
            as default_goodput,
        max(assumptions.value) filter (where assumptions.assumption_key = 'tokens_per_param')
            as default_tokens_per_param,
        max(assumptions.value) filter (where assumptions.assumption_key = 'mfu_fp8')
            as default_mfu_fp8,
        max(assumptions.value) filter (where assumptions.assumption_key = 'moe_mfu_multiplier')
            as default_moe_mfu_multiplier,
        max(assumptions.value) filter (where assumptions.assumption_key = 'pue')
            as default_pue,
        max(assumptions.value) filter (
            where assumptions.assumption_key = 'electricity_usd_per_kwh'
        ) as default_electricity_usd_per_kwh,
        max(assumptions.value) filter (where assumptions.assumption_key = 'server_to_chip_power')
            as default_server_to_chip_power,
        max(assumptions.value) filter (
            where assumptions.assumption_key = 'avg_power_fraction_gpu'
        ) as default_avg_power_fraction_gpu,
        max(assumptions.value) filter (where assumptions.assumption_key = 'server_cost_overhead')
            as default_server_cost_overhead,
        max(assumptions.value) filter (
            where assumptions.assumption_key = 'network_fraction_of_cluster'
        ) as default_network_fraction_of_cluster,
        max(assumptions.value) filter (
            where assumptions.assumption_key = 'depreciation_ooms_per_year'
        ) as default_depreciation_ooms_per_year,
        max(assumptions.value) filter (where assumptions.assumption_key = 'depreciation_years')
            as default_depreciation_years,
        max(assumptions.value) filter (where assumptions.assumption_key = 'wacc')
            as default_wacc,
        max(assumptions.value) filter (where assumptions.assumption_key = 'colo_usd_per_kw_month')
            as default_colo_usd_per_kw_month,
        coalesce(
            max(assumptions.value) filter (where assumptions.assumption_key = 'hours_per_year'),
            8760
        ) as default_hours_per_year,
        max(assumptions.value) filter (
            where assumptions.assumption_key = 'inference_bandwidth_utilisation'
        ) as default_inference_bandwidth_utilisation
    from assumptions

)

select * from final
