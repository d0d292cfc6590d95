-- one row per accelerator x price_basis (int_cost_bases, every column) with the accelerator's
-- memory and bandwidth figures (accelerators): what memory_per_dollar and bandwidth_per_dollar
-- divide by the hourly and the purchase price.

select
    cost_bases.*,
    accelerator_specs.memory_gb,
    accelerator_specs.memory_bw_tbps,
    accelerator_specs.interconnect_bw_gbps
from int_cost_bases as cost_bases
inner join accelerators as accelerator_specs using (accelerator_id)
