-- one row per accelerator: the scale-up domain its training runs place tensor parallelism in
-- (catalog/scale_up_domains.csv). An accelerator without a row there has no scale-up fabric
-- (PCIe cards, single-GPU superchip nodes): domain_size 1, has_scale_up_fabric false; its
-- model-parallel group is capped by assumption pcie_max_model_parallel_gpus
-- (training_cost_estimate).
--
-- columns:
--   name: the vendor's product name (accelerators.name)
--   form_factor: SXM5, PCIe, PCIe (consumer), OAM, TPU pod slice, ... (accelerators.form_factor)
--   domain_size [accelerators]: accelerators in one scale-up domain (1 = none beyond the card)
--   scale_up_link: the fabric of the domain (NVLink 4 + NVSwitch (HGX H100 8-GPU), ICI, ...);
--     null without one
--   scale_up_bw_gbps [GB/s]: the fabric's bandwidth per accelerator as the vendor states it;
--     null when not typed
--   has_scale_up_fabric: the accelerator has a row in catalog/scale_up_domains.csv with a
--     domain of more than one accelerator
--   scale_up_source_url: where domain_size, link and bandwidth come from; null without a row
--   scale_up_note: how the domain is built
--   node_gpus [accelerators]: the GPUs of one node (server or compute tray) of the part, the
--     whole unit a multi-node run rents: 8 unless the catalog says otherwise (GB200 and GB300
--     NVL72: compute trays of 4)

with

accelerator_specs as (

    select * from accelerators

),

domains as (

    select * from stg_curated__scale_up_domains

),

final as (

    select
        accelerator_specs.accelerator_id,
        accelerator_specs.name,
        accelerator_specs.form_factor,
        accelerator_specs.memory_gb,
        coalesce(domains.domain_size, 1) as domain_size,
        domains.link as scale_up_link,
        domains.bandwidth_gbps as scale_up_bw_gbps,
        coalesce(domains.domain_size, 1) > 1 as has_scale_up_fabric,
        domains.source_url as scale_up_source_url,
        domains.note as scale_up_note,
        coalesce(domains.node_gpus, 8) as node_gpus
    from accelerator_specs
    left join domains using (accelerator_id)

)

select * from final
order by final.accelerator_id
