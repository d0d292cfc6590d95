-- returns one row per observed rental price basis of one accelerator (price_bases, basis_kind
-- 'observed'): what a GPU-hour actually used costs when the accelerator is owned and busy
-- `utilisation` of the time, beside the rental price, and the break-even utilisation.
--
-- From ownership_estimate's cost-of-capital (TCO) view over `years` of useful life
-- (cost-methods.md §2.4; years null = assumption depreciation_years):
--   capital per GPU-hour  = cluster capex per GPU x CRF(wacc, years) / hours per year
--                         = tco_usd_per_gpu_hour - energy - hosting   (paid used or not)
--   hosting per GPU-hour  = IT power (kW) x colo_usd_per_kw_month x 12 / hours per year
--                                                                   (paid used or not)
--   energy per used hour  = energy_usd_per_gpu_hour (TDP x server/chip x load x PUE x USD/kWh)
--   owned per used hour   = (capital + hosting) / utilisation + energy
--   break-even            = breakeven_utilisation(capital + hosting, energy, rental price)
-- The Epoch amortised owned cost (the 'owned' price basis, at 100% utilisation) is carried for
-- comparison.

create or replace macro rent_vs_buy_estimate(accelerator, utilisation, years := null) as table
with

inputs as (

    select
        cost_inputs.*,
        specs.purchase_price_basis,
        specs.purchase_price_date,
        specs.purchase_price_source_url,
        defaults.default_hours_per_year as hours_per_year
    from accelerator_cost_inputs as cost_inputs
    join accelerators as specs using (accelerator_id)
    cross join cost_defaults as defaults
    where cost_inputs.accelerator_id = accelerator

),

owned as (

    select
        inputs.accelerator_id,
        inputs.name,
        inputs.purchase_price_usd,
        inputs.purchase_price_basis,
        inputs.purchase_price_date,
        inputs.purchase_price_source_url,
        inputs.tdp_w,
        inputs.server_to_chip_power_key,
        inputs.avg_power_fraction_key,
        inputs.hours_per_year,
        estimate.*
    from inputs,
        lateral ownership_estimate(
            inputs.purchase_price_usd,
            inputs.tdp_w,
            server_to_chip_power := inputs.server_to_chip_power,
            avg_power_fraction := inputs.avg_power_fraction,
            useful_life_years := years
        ) as estimate

),

split as (

    select
        owned.*,
        owned.it_power_kw_per_gpu * owned.colo_usd_per_kw_month * 12 / owned.hours_per_year
            as hosting_usd_per_gpu_hour,
        owned.tco_usd_per_gpu_hour - owned.energy_usd_per_gpu_hour
            - owned.it_power_kw_per_gpu * owned.colo_usd_per_kw_month * 12
                / owned.hours_per_year as tco_capital_usd_per_gpu_hour,
        cast(utilisation as double) as utilisation
    from owned

)

select
    split.accelerator_id,
    split.name,
    split.utilisation,
    split.useful_life_years,
    split.wacc,
    split.purchase_price_usd,
    split.purchase_price_basis,
    split.purchase_price_date,
    split.purchase_price_source_url,
    split.server_cost_overhead,
    split.network_fraction_of_cluster,
    split.cluster_capex_per_gpu_usd,
    split.tdp_w,
    split.it_power_kw_per_gpu,
    split.server_to_chip_power_key,
    split.avg_power_fraction,
    split.avg_power_fraction_key,
    split.pue,
    split.electricity_usd_per_kwh,
    split.colo_usd_per_kw_month,
    split.hours_per_year,
    split.tco_capital_usd_per_gpu_hour,
    split.hosting_usd_per_gpu_hour,
    split.energy_usd_per_gpu_hour,
    split.tco_usd_per_gpu_hour,
    (split.tco_capital_usd_per_gpu_hour + split.hosting_usd_per_gpu_hour) / split.utilisation
        + split.energy_usd_per_gpu_hour as owned_usd_per_used_gpu_hour,
    split.owned_usd_per_gpu_hour as epoch_owned_usd_per_gpu_hour,
    bases.price_basis as rental_price_basis,
    bases.provider as rental_provider,
    bases.sku as rental_sku,
    bases.source_url as rental_source_url,
    bases.observed_at as rental_observed_at,
    bases.price_per_gpu_hour as rental_price_per_gpu_hour,
    breakeven_utilisation(
        split.tco_capital_usd_per_gpu_hour + split.hosting_usd_per_gpu_hour,
        split.energy_usd_per_gpu_hour,
        bases.price_per_gpu_hour
    ) as breakeven_utilisation,
    -- the catalog assumptions read: ownership_estimate's and the accelerator's power keys
    split.assumption_keys || list_filter(
        [split.server_to_chip_power_key, split.avg_power_fraction_key],
        lambda key: key is not null
    ) as assumption_keys
from split
left join price_bases as bases
    on bases.accelerator_id = split.accelerator_id
    and bases.basis_kind = 'observed'
    -- the default rental bases (basis_rank 1); a shorter commitment, a savings plan, queued
    -- capacity and capacity blocks are compared by commitment_breakeven instead
    and bases.basis_rank = 1
order by bases.price_per_gpu_hour nulls last
