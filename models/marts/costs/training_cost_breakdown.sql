-- one row per training scenario that pins an accelerator and a GPU count x cost preset
-- (cost_breakdown_presets) x component (gpus, other_server, networking, energy, staff): the
-- full bill of the run by the macro cost_breakdown_estimate, from the GPU-hours of
-- training_cost. Only accelerators with a purchase price estimate (the hardware lines need it).
--
-- columns:
--   scenario_id: the training scenario (training_cost.scenario_id); only those that pin an
--     accelerator and a GPU count
--   preset_id: the cost preset (cost_breakdown_presets.preset_id)
--   hardware_method: the preset's hardware method: 'amortised' or 'acquisition'
--   gpu_hours [GPU-hours]: the run's GPU-hours (training_cost.gpu_hours)
--   n_gpus [GPUs]: the run's cluster size (training_cost.n_gpus)
--   component: the cost line: gpus, other_server, networking, energy or staff
--   sort_order: the component's place in the bill (1 gpus ... 5 staff)
--   usd [USD]: the component's cost by the macro cost_breakdown_estimate ('amortised': hardware
--     depreciated over the run's GPU-hours; 'acquisition': hardware bought outright; staff: the
--     preset's share of the whole bill)
--   share_of_total [fraction]: usd / total_usd
--   total_usd [USD]: the whole bill of the run under the preset (sum of its five components)

with

runs as (

    select distinct
        training_cost.scenario_id,
        training_cost.accelerator_id,
        training_cost.gpu_hours,
        training_cost.n_gpus
    from training_cost
    inner join stg_curated__training_scenarios as scenarios
        on scenarios.scenario_id = training_cost.scenario_id
    inner join accelerator_cost_inputs as accelerator_inputs
        on accelerator_inputs.accelerator_id = training_cost.accelerator_id
    where scenarios.accelerator is not null
        and training_cost.n_gpus is not null
        and accelerator_inputs.purchase_price_usd > 0

),

presets as (

    select * from cost_breakdown_presets

),

final as (

    select
        runs.scenario_id,
        breakdown.*
    from runs
    cross join presets,
        lateral cost_breakdown_estimate(
            runs.gpu_hours,
            n_gpus := runs.n_gpus,
            accelerator := runs.accelerator_id,
            preset := presets.preset_id
        ) as breakdown

)

select * from final
order by final.scenario_id, final.preset_id, final.sort_order
