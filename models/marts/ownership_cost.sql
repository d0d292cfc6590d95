-- one row per accelerator with a purchase price x rental price basis (on_demand_min,
-- on_demand_median, spot_min, community_min, reserved_*_min; null when it has none): the owned
-- USD per GPU-hour by Epoch AI's amortised method beside the rental price, and the
-- utilisation above which buying beats renting (macros ownership_estimate,
-- breakeven_utilisation; cost-methods.md §2.2 and §2.4). Owned figures are at 100%
-- utilisation; tco_usd_per_gpu_hour is the cost-of-capital (WACC, useful life, colocation)
-- view of the same hardware.

with

accelerator_inputs as (

    select * from accelerator_cost_inputs

),

rental_bases as (

    select * from int_price_bases

),

owned as (

    select
        accelerator_inputs.accelerator_id,
        accelerator_inputs.name,
        accelerator_inputs.tdp_w,
        accelerator_inputs.server_to_chip_power,
        accelerator_inputs.server_to_chip_power_key,
        estimate.*
    from accelerator_inputs,
        lateral ownership_estimate(
            accelerator_inputs.purchase_price_usd,
            accelerator_inputs.tdp_w,
            server_to_chip_power := accelerator_inputs.server_to_chip_power,
            avg_power_fraction := accelerator_inputs.avg_power_fraction
        ) as estimate
    where accelerator_inputs.purchase_price_usd > 0
        and accelerator_inputs.tdp_w > 0

),

final as (

    select
        ---------- ids
        owned.accelerator_id,
        owned.name,

        ---------- owned, Epoch amortised method (USD per GPU-hour at 100% utilisation)
        owned.purchase_price_usd,
        owned.server_cost_overhead,
        owned.server_price_per_gpu_usd,
        owned.network_fraction_of_cluster,
        owned.cluster_capex_per_gpu_usd,
        owned.depreciation_rate_per_year,
        owned.hardware_usd_per_gpu_hour,
        owned.interconnect_usd_per_gpu_hour,
        owned.tdp_w,
        owned.server_to_chip_power,
        owned.server_to_chip_power_key,
        owned.avg_power_fraction,
        owned.pue,
        owned.electricity_usd_per_kwh,
        owned.energy_usd_per_gpu_hour,
        owned.capital_usd_per_gpu_hour,
        owned.owned_usd_per_gpu_hour,
        owned.energy_share,

        ---------- owned, cost-of-capital view
        owned.useful_life_years,
        owned.wacc,
        owned.colo_usd_per_kw_month,
        owned.tco_usd_per_gpu_hour,

        ---------- rent vs buy
        rental_bases.price_basis as rental_price_basis,
        rental_bases.provider as rental_provider,
        rental_bases.price_per_gpu_hour as rental_price_per_gpu_hour,
        'USD' as currency,
        rental_bases.observed_at,
        rental_bases.price_per_gpu_hour / owned.owned_usd_per_gpu_hour as rent_to_own_ratio,
        breakeven_utilisation(
            owned.capital_usd_per_gpu_hour,
            owned.energy_usd_per_gpu_hour,
            rental_bases.price_per_gpu_hour
        ) as breakeven_utilisation

    from owned
    left join rental_bases
        on rental_bases.accelerator_id = owned.accelerator_id

)

select * from final
order by final.accelerator_id, final.rental_price_basis
