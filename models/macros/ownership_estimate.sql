-- returns one row: the owned cost of one accelerator per GPU-hour, two ways.
--
-- Epoch AI amortised method (Cottier et al. 2024; cost-methods.md §2.2), the 'owned' basis:
--   server_price_per_gpu  = purchase price x server_cost_overhead (chip -> server share)
--                           x 10^(-ooms_per_year x years_since_purchase)
--   hardware per hour     = server_price_per_gpu x (ooms_per_year x ln 10) / hours_per_year
--   interconnect per hour = hardware per hour x f / (1 - f), f = network_fraction_of_cluster
--   energy per hour       = TDP x server_to_chip_power x avg_power_fraction x PUE x USD/kWh
-- TCO with a cost of capital (cost-methods.md §2.4), for comparison:
--   (capex_all_in x CRF(wacc, life) + power + colocation per year) / hours_per_year,
--   capex_all_in = server_price_per_gpu / (1 - f), CRF = r(1+r)^L / ((1+r)^L - 1) (1/L at 0).
-- Both at 100% utilisation of the owned hardware; break-even utilisation against a rental
-- price is capital per hour / (rental price - energy per hour).
-- A null argument takes the catalog assumption of the same meaning (cost_defaults).
-- assumption_keys: the catalog assumptions (catalog/assumptions.csv keys) the answer read: the
-- ones the null arguments defaulted to, and hours_per_year.

create or replace macro ownership_estimate(
    purchase_price_usd,
    tdp_w,
    server_to_chip_power := null,
    avg_power_fraction := null,
    pue := null,
    electricity_usd_per_kwh := null,
    server_cost_overhead := null,
    network_fraction := null,
    ooms_per_year := null,
    years_since_purchase := 0,
    useful_life_years := null,
    wacc := null,
    colo_usd_per_kw_month := null
) as table
with

args as (

    select
        purchase_price_usd as arg_price,
        tdp_w as arg_tdp_w,
        coalesce(server_to_chip_power, defaults.default_server_to_chip_power) as arg_ratio,
        coalesce(avg_power_fraction, defaults.default_avg_power_fraction_gpu) as arg_load,
        coalesce(pue, defaults.default_pue) as arg_pue,
        coalesce(electricity_usd_per_kwh, defaults.default_electricity_usd_per_kwh)
            as arg_usd_per_kwh,
        coalesce(server_cost_overhead, defaults.default_server_cost_overhead) as arg_overhead,
        coalesce(network_fraction, defaults.default_network_fraction_of_cluster)
            as arg_network_fraction,
        coalesce(ooms_per_year, defaults.default_depreciation_ooms_per_year) as arg_ooms,
        coalesce(years_since_purchase, 0) as arg_years_since,
        coalesce(useful_life_years, defaults.default_depreciation_years) as arg_life,
        coalesce(wacc, defaults.default_wacc) as arg_wacc,
        coalesce(colo_usd_per_kw_month, defaults.default_colo_usd_per_kw_month) as arg_colo,
        defaults.default_hours_per_year as arg_hours_per_year,
        -- the assumptions a figure left out defaults to (assumption_keys)
        list_filter([
            case when server_cost_overhead is null then 'server_cost_overhead' end,
            case when network_fraction is null then 'network_fraction_of_cluster' end,
            case when wacc is null then 'wacc' end,
            case when server_to_chip_power is null then 'server_to_chip_power' end,
            case when avg_power_fraction is null then 'avg_power_fraction_gpu' end,
            case when pue is null then 'pue' end,
            case when electricity_usd_per_kwh is null then 'electricity_usd_per_kwh' end,
            case when colo_usd_per_kw_month is null then 'colo_usd_per_kw_month' end,
            'hours_per_year',
            case when useful_life_years is null then 'depreciation_years' end,
            case when ooms_per_year is null then 'depreciation_ooms_per_year' end
        ], lambda key: key is not null) as arg_keys
    from cost_defaults as defaults

),

epoch as (

    select
        args.*,
        args.arg_price * args.arg_overhead * power(10, -args.arg_ooms * args.arg_years_since)
            as server_price_per_gpu_usd,
        args.arg_ooms * ln(10) as depreciation_rate_per_year,
        args.arg_tdp_w / 1000.0 * args.arg_ratio as it_power_kw_per_gpu
    from args

),

components as (

    select
        epoch.*,
        epoch.server_price_per_gpu_usd / (1 - epoch.arg_network_fraction)
            as cluster_capex_per_gpu_usd,
        epoch.server_price_per_gpu_usd * epoch.depreciation_rate_per_year
            / epoch.arg_hours_per_year as hardware_usd_per_gpu_hour,
        epoch.server_price_per_gpu_usd * epoch.depreciation_rate_per_year
            / epoch.arg_hours_per_year
            * epoch.arg_network_fraction / (1 - epoch.arg_network_fraction)
            as interconnect_usd_per_gpu_hour,
        epoch.it_power_kw_per_gpu * epoch.arg_load * epoch.arg_pue * epoch.arg_usd_per_kwh
            as energy_usd_per_gpu_hour,
        case
            when epoch.arg_wacc = 0 then 1.0 / epoch.arg_life
            else epoch.arg_wacc * power(1 + epoch.arg_wacc, epoch.arg_life)
                / (power(1 + epoch.arg_wacc, epoch.arg_life) - 1)
        end as capital_recovery_factor
    from epoch

)

select
    components.arg_price as purchase_price_usd,
    components.arg_overhead as server_cost_overhead,
    components.server_price_per_gpu_usd,
    components.arg_network_fraction as network_fraction_of_cluster,
    components.cluster_capex_per_gpu_usd,
    components.depreciation_rate_per_year,
    components.hardware_usd_per_gpu_hour,
    components.interconnect_usd_per_gpu_hour,
    components.it_power_kw_per_gpu,
    components.arg_load as avg_power_fraction,
    components.arg_pue as pue,
    components.arg_usd_per_kwh as electricity_usd_per_kwh,
    components.energy_usd_per_gpu_hour,
    components.hardware_usd_per_gpu_hour + components.interconnect_usd_per_gpu_hour
        as capital_usd_per_gpu_hour,
    components.hardware_usd_per_gpu_hour + components.interconnect_usd_per_gpu_hour
        + components.energy_usd_per_gpu_hour as owned_usd_per_gpu_hour,
    components.energy_usd_per_gpu_hour
        / (components.hardware_usd_per_gpu_hour + components.interconnect_usd_per_gpu_hour
            + components.energy_usd_per_gpu_hour) as energy_share,
    components.arg_life as useful_life_years,
    components.arg_wacc as wacc,
    components.arg_colo as colo_usd_per_kw_month,
    (
        components.cluster_capex_per_gpu_usd * components.capital_recovery_factor
        + components.it_power_kw_per_gpu * components.arg_load * components.arg_pue
            * components.arg_hours_per_year * components.arg_usd_per_kwh
        + components.it_power_kw_per_gpu * components.arg_colo * 12
    ) / components.arg_hours_per_year as tco_usd_per_gpu_hour,
    components.arg_keys as assumption_keys
from components
