-- one row per named cost-breakdown preset (catalog/cost_presets.csv) with every figure
-- resolved: a figure the preset leaves empty takes the catalog assumption of the same meaning
-- (server_cost_overhead, network_fraction_of_cluster, electricity_usd_per_kwh, pue,
-- experiment_multiplier 1).
--
-- columns:
--   preset_id: the preset's id (epoch_central, epoch_final_run, seed_2023, ...)
--   description: what the preset assumes
--   hardware_method: 'amortised' (Epoch AI: hardware depreciated over the run's GPU-hours) or
--     'acquisition' (seed 003: the hardware bought outright)
--   gpu_share_of_hardware [fraction]: the accelerators' share of cluster hardware cost
--     ('acquisition' presets; null otherwise)
--   staff_share_of_total [fraction]: staff as a share of the whole bill (0 = no staff line)
--   experiment_multiplier [ratio]: total development compute / final-run compute (1 = the final run
--     only); multiplies the 'amortised' hardware and energy lines
--   operating_period_days [days]: days the bought cluster is powered for the 'acquisition' energy
--     line; null = the run's own GPU-hours
--   source_url: where the preset's figures come from
--   note: how the figures were chosen, and caveats

with

presets as (

    select * from stg_curated__cost_presets

),

final as (

    select
        presets.preset_id,
        presets.description,
        presets.hardware_method,
        coalesce(presets.server_cost_overhead, defaults.default_server_cost_overhead)
            as server_cost_overhead,
        presets.gpu_share_of_hardware,
        coalesce(
            presets.network_fraction_of_cluster, defaults.default_network_fraction_of_cluster
        ) as network_fraction_of_cluster,
        coalesce(presets.electricity_usd_per_kwh, defaults.default_electricity_usd_per_kwh)
            as electricity_usd_per_kwh,
        coalesce(presets.pue, defaults.default_pue) as pue,
        coalesce(presets.staff_share_of_total, 0) as staff_share_of_total,
        coalesce(presets.experiment_multiplier, 1) as experiment_multiplier,
        presets.operating_period_days,
        presets.source_url,
        presets.note
    from presets
    cross join cost_defaults as defaults

)

select * from final
order by final.preset_id
