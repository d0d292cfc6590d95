-- one row: the catalog assumptions the cost macros fall back on, one column each
-- (default_<assumption key>; null when the catalog lacks the key). The macros join this row
-- once instead of looking every key up (a lookup per key would be planned per call). What
-- each figure means and where it comes from is in cost_assumptions.
--
-- columns:
--   default_goodput [fraction]: assumption goodput: wall-clock efficiency on top of MFU (failures,
--     restarts, checkpoints)
--   default_tokens_per_param [tokens per parameter]: assumption tokens_per_param: training tokens
--     per parameter when only the parameter count is given (Chinchilla)
--   default_mfu_fp8 [fraction]: assumption mfu_fp8: default MFU of an FP8 run, against the FP8
--     dense peak
--   default_moe_mfu_multiplier [ratio]: assumption moe_mfu_multiplier: multiplier on the dense MFU
--     default for a mixture of experts
--   default_pue [ratio]: assumption pue: power usage effectiveness
--   default_electricity_usd_per_kwh [USD/kWh]: assumption electricity_usd_per_kwh: electricity
--     price
--   default_server_to_chip_power [ratio]: assumption server_to_chip_power: the generic server power
--     per accelerator / accelerator TDP
--   default_avg_power_fraction_gpu [fraction]: assumption avg_power_fraction_gpu: average GPU power
--     draw during training / TDP
--   default_server_cost_overhead [ratio]: assumption server_cost_overhead: server price per
--     accelerator / accelerator price
--   default_network_fraction_of_cluster [fraction]: assumption network_fraction_of_cluster:
--     interconnect share of total cluster hardware cost
--   default_depreciation_ooms_per_year [OOM/year]: assumption depreciation_ooms_per_year: hardware
--     price-performance improvement used to depreciate owned hardware (x ln 10 = the depreciation
--     rate per year)
--   default_depreciation_years [years]: assumption depreciation_years: useful life of owned
--     hardware (the term of the TCO annuity)
--   default_wacc [fraction per year]: assumption wacc: cost of capital of the TCO annuity
--   default_colo_usd_per_kw_month [USD per kW-month]: assumption colo_usd_per_kw_month: colocation
--     price per kW of server power
--   default_hours_per_year [hours]: assumption hours_per_year (8760 when the catalog lacks it)
--   default_inference_bandwidth_utilisation [fraction]: assumption inference_bandwidth_utilisation:
--     achieved / peak memory bandwidth (MBU) of memory-bound decode
--   default_inference_serving_batch_size [sequences]: assumption inference_serving_batch_size: the
--     batch of a bare `gpucost estimate --inference` (calibrated on MLPerf measurements)
--   default_inference_serving_weight_bits [bits]: assumption inference_serving_weight_bits: the
--     weight precision of a bare `gpucost estimate --inference` (8: fp8)
--   default_inference_serving_precision: that weight precision as a precision name (4 bits
--     'fp4', 8 'fp8', else 'bf16'), the one mapping the serving defaults are read through

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
        ) as default_inference_bandwidth_utilisation,
        max(assumptions.value) filter (
            where assumptions.assumption_key = 'inference_serving_batch_size'
        ) as default_inference_serving_batch_size,
        max(assumptions.value) filter (
            where assumptions.assumption_key = 'inference_serving_weight_bits'
        ) as default_inference_serving_weight_bits,
        case cast(max(assumptions.value) filter (
            where assumptions.assumption_key = 'inference_serving_weight_bits'
        ) as integer)
            when 4 then 'fp4' when 8 then 'fp8' else 'bf16'
        end as default_inference_serving_precision
    from assumptions

)

select * from final
