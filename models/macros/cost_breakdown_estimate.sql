-- returns one row per cost component (gpus, other_server, networking, energy, staff) of a
-- training run of `gpu_hours` on `n_gpus` accelerators under a named preset
-- (cost_breakdown_presets), with its USD and share of the total.
--
-- hardware_method 'amortised' (Epoch AI; cost-methods.md §2.2, §2.5):
--   gpus         = gpu_hours x purchase price x (ooms_per_year x ln 10) / hours_per_year
--   other_server = gpus x (server_cost_overhead - 1)
--   networking   = (gpus + other_server) x f / (1 - f)
--   energy       = training_energy_mwh(gpu_hours) x USD/kWh
--   all x experiment_multiplier (experiments and ablations beside the final run)
-- hardware_method 'acquisition' (seed 003): the hardware is bought outright:
--   gpus = n_gpus x purchase price; hardware = gpus / gpu_share_of_hardware;
--   networking = hardware x f; other_server = the rest; energy over operating_period_days
--   (default: the run itself)
-- staff = (hardware + energy) x s / (1 - s), s = staff_share_of_total.

create or replace macro cost_breakdown_estimate(
    gpu_hours, n_gpus := null, accelerator := null, preset := 'epoch_central'
) as table
with

args as (

    select
        cast(gpu_hours as double) as arg_gpu_hours,
        cast(n_gpus as double) as arg_n_gpus,
        name_key(cast(accelerator as varchar))
            as arg_accelerator_key,
        cast(preset as varchar) as arg_preset,
        defaults.default_depreciation_ooms_per_year * ln(10) as arg_depreciation_rate,
        defaults.default_hours_per_year as arg_hours_per_year
    from cost_defaults as defaults

),

inputs as (

    select
        args.*,
        accelerator_inputs.accelerator_id,
        accelerator_inputs.purchase_price_usd,
        accelerator_inputs.tdp_w,
        accelerator_inputs.server_to_chip_power,
        accelerator_inputs.avg_power_fraction,
        presets.preset_id,
        presets.hardware_method,
        presets.server_cost_overhead,
        presets.gpu_share_of_hardware,
        presets.network_fraction_of_cluster,
        presets.electricity_usd_per_kwh,
        presets.pue,
        presets.staff_share_of_total,
        presets.experiment_multiplier,
        coalesce(
            args.arg_n_gpus * presets.operating_period_days * 24, args.arg_gpu_hours
        ) as powered_gpu_hours
    from args
    inner join accelerator_aliases as aliases
        on aliases.alias_key = args.arg_accelerator_key
    inner join accelerator_cost_inputs as accelerator_inputs
        on accelerator_inputs.accelerator_id = aliases.accelerator_id
    inner join cost_breakdown_presets as presets
        on presets.preset_id = args.arg_preset

),

hardware as (

    select
        inputs.*,
        case inputs.hardware_method
            when 'amortised' then inputs.arg_gpu_hours * inputs.purchase_price_usd
                * inputs.arg_depreciation_rate / inputs.arg_hours_per_year
                * inputs.experiment_multiplier
            when 'acquisition' then inputs.arg_n_gpus * inputs.purchase_price_usd
        end as gpus_usd,
        case inputs.hardware_method
            when 'amortised' then inputs.arg_gpu_hours * inputs.purchase_price_usd
                * inputs.server_cost_overhead * inputs.arg_depreciation_rate
                / inputs.arg_hours_per_year * inputs.experiment_multiplier
                / (1 - inputs.network_fraction_of_cluster)
            when 'acquisition' then inputs.arg_n_gpus * inputs.purchase_price_usd
                / inputs.gpu_share_of_hardware
        end as hardware_usd,
        training_energy_mwh(
            case inputs.hardware_method
                when 'amortised' then inputs.arg_gpu_hours * inputs.experiment_multiplier
                else inputs.powered_gpu_hours
            end,
            inputs.tdp_w, inputs.server_to_chip_power, inputs.avg_power_fraction, inputs.pue
        ) * 1000 * inputs.electricity_usd_per_kwh as energy_usd
    from inputs

),

components as (

    select
        hardware.*,
        hardware.hardware_usd * hardware.network_fraction_of_cluster as networking_usd,
        hardware.hardware_usd * (1 - hardware.network_fraction_of_cluster) - hardware.gpus_usd
            as other_server_usd,
        (hardware.hardware_usd + hardware.energy_usd)
            * hardware.staff_share_of_total / (1 - hardware.staff_share_of_total) as staff_usd
    from hardware

),

long as (

    select components.*, parts.component, parts.sort_order,
        case parts.component
            when 'gpus' then components.gpus_usd
            when 'other_server' then components.other_server_usd
            when 'networking' then components.networking_usd
            when 'energy' then components.energy_usd
            when 'staff' then components.staff_usd
        end as component_usd
    from components
    cross join (
        values ('gpus', 1), ('other_server', 2), ('networking', 3), ('energy', 4), ('staff', 5)
    ) as parts (component, sort_order)

)

select
    long.preset_id,
    long.hardware_method,
    long.accelerator_id,
    long.arg_gpu_hours as gpu_hours,
    long.arg_n_gpus as n_gpus,
    long.component,
    long.sort_order,
    long.component_usd as usd,
    long.component_usd / sum(long.component_usd) over () as share_of_total,
    sum(long.component_usd) over () as total_usd
from long
