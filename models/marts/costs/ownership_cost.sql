-- one row per accelerator with a purchase price x rental price basis (on_demand_min,
-- on_demand_median, spot_min, community_min, reserved_*_min; null when it has none): the owned
-- USD per GPU-hour by Epoch AI's amortised method beside the rental price, and the
-- utilisation above which buying beats renting (macros ownership_estimate,
-- breakeven_utilisation; cost-methods.md §2.2 and §2.4). Owned figures are at 100%
-- utilisation; tco_usd_per_gpu_hour is the cost-of-capital (WACC, useful life, colocation)
-- view of the same hardware.
--
-- columns:
--   name: the vendor's product name (accelerators.name)
--   purchase_price_usd [USD]: the accelerator's purchase price (accelerators.purchase_price_usd);
--     for one sold only inside a system, its share of the system price (system_price_usd /
--     accelerators_per_system of catalog/system_prices.csv)
--   purchase_price_kind: 'chip price' (the accelerator's own price) or 'system price' (a share of
--     a cited system price, e.g. a GB300 NVL72 rack: server_cost_overhead is then 1)
--   system_id: the system whose price purchase_price_usd is a share of (catalog/system_prices.csv);
--     null for a chip price
--   server_price_per_gpu_usd [USD]: purchase_price_usd x server_cost_overhead: the server's price
--     per accelerator
--   cluster_capex_per_gpu_usd [USD]: server_price_per_gpu_usd / (1 - network_fraction_of_cluster):
--     hardware with its share of the interconnect, per accelerator
--   depreciation_rate_per_year [per year]: default_depreciation_ooms_per_year x ln 10 (Epoch AI's
--     price-performance depreciation)
--   hardware_usd_per_gpu_hour [USD per GPU-hour]: server_price_per_gpu_usd x
--     depreciation_rate_per_year / hours per year
--   interconnect_usd_per_gpu_hour [USD per GPU-hour]: hardware_usd_per_gpu_hour x f / (1 - f), f =
--     network_fraction_of_cluster
--   energy_usd_per_gpu_hour [USD per GPU-hour]: tdp_w / 1000 x server_to_chip_power x
--     avg_power_fraction x pue x electricity_usd_per_kwh
--   capital_usd_per_gpu_hour [USD per GPU-hour]: hardware_usd_per_gpu_hour +
--     interconnect_usd_per_gpu_hour (paid whether the GPU is used or not)
--   owned_usd_per_gpu_hour [USD per GPU-hour]: capital_usd_per_gpu_hour + energy_usd_per_gpu_hour:
--     Epoch AI's amortised owned cost at 100% utilisation (the 'owned' price basis)
--   energy_share [fraction]: energy_usd_per_gpu_hour / owned_usd_per_gpu_hour
--   useful_life_years [years]: useful life of the hardware in the TCO view (assumption
--     depreciation_years)
--   wacc [fraction per year]: cost of capital in the TCO view
--   colo_usd_per_kw_month [USD per kW-month]: colocation price per kW of server power, in the TCO
--     view
--   tco_usd_per_gpu_hour [USD per GPU-hour]: (cluster_capex_per_gpu_usd x capital recovery factor
--     (wacc, useful_life_years) + a year of energy + a year of colocation) / hours per year, at
--     100% utilisation
--   rental_price_basis: the rental price basis compared (on_demand_min, on_demand_median, spot_min,
--     community_min, reserved_1y_min, reserved_3y_min); null when the accelerator has no rental
--     price
--   rental_provider: provider of the rental price (the cheapest one for _min); null for
--     on_demand_median
--   rental_price_per_gpu_hour [USD per GPU-hour]: the rental price of one GPU-hour
--   observed_at [timestamp (UTC)]: when the rental price was observed (for on_demand_median the
--     oldest price behind it)
--   rent_to_own_ratio [ratio]: rental_price_per_gpu_hour / owned_usd_per_gpu_hour
--   breakeven_utilisation [fraction]: utilisation above which owning is cheaper than renting:
--     capital_usd_per_gpu_hour / (rental_price_per_gpu_hour - energy_usd_per_gpu_hour); above 1
--     renting is always cheaper; null when the rental price does not cover the energy

with

accelerator_inputs as (

    select * from accelerator_cost_inputs

),

rental_bases as (

    select * from int_price_bases
    where int_price_bases.min_gpus_per_instance = 1  -- every instance size

),

system_prices as (

    select * from stg_curated__system_prices

),

-- the price each owned accelerator is amortised from: its own purchase price, else (sold only
-- inside a system: a GB200 / GB300 NVL72 rack) its share of a cited system price, which is
-- already a server price (server_cost_overhead 1)
purchase_prices as (

    select
        accelerator_inputs.accelerator_id,
        accelerator_inputs.purchase_price_usd,
        'chip price' as purchase_price_kind,
        cast(null as varchar) as system_id,
        cast(null as double) as server_cost_overhead
    from accelerator_inputs
    where accelerator_inputs.purchase_price_usd > 0
    union all
    select
        system_prices.accelerator_id,
        system_prices.system_price_usd / system_prices.accelerators_per_system,
        'system price',
        system_prices.system_id,
        1.0
    from system_prices
    anti join accelerator_inputs
        on accelerator_inputs.accelerator_id = system_prices.accelerator_id
        and accelerator_inputs.purchase_price_usd > 0
    where system_prices.system_price_usd > 0
        and system_prices.accelerators_per_system > 0

),

owned as (

    select
        accelerator_inputs.accelerator_id,
        accelerator_inputs.name,
        accelerator_inputs.tdp_w,
        accelerator_inputs.server_to_chip_power,
        accelerator_inputs.server_to_chip_power_key,
        purchase_prices.purchase_price_kind,
        purchase_prices.system_id,
        estimate.*
    from accelerator_inputs
    inner join purchase_prices
        on purchase_prices.accelerator_id = accelerator_inputs.accelerator_id,
        lateral ownership_estimate(
            purchase_prices.purchase_price_usd,
            accelerator_inputs.tdp_w,
            server_to_chip_power := accelerator_inputs.server_to_chip_power,
            avg_power_fraction := accelerator_inputs.avg_power_fraction,
            server_cost_overhead := purchase_prices.server_cost_overhead
        ) as estimate
    where accelerator_inputs.tdp_w > 0

),

final as (

    select
        ---------- ids
        owned.accelerator_id,
        owned.name,

        ---------- owned, Epoch amortised method (USD per GPU-hour at 100% utilisation)
        owned.purchase_price_usd,
        owned.purchase_price_kind,
        owned.system_id,
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
