-- guards: every figure typed into the cost catalog files has a source: each training
-- scenario, inference scenario, published run and cost preset has a source_url, a reported
-- MFU has its own source, a claimed ratio has the claim's source, a run says how far its
-- figures can be trusted (confidence), every scale-up domain has its source, and every analyst
-- cost per GPU-hour has its source, date and kind and names a catalogued accelerator.

select 'training_scenarios' as catalog_file, scenarios.scenario_id as row_id,
    'source_url' as missing
from stg_curated__training_scenarios as scenarios
where scenarios.source_url is null

union all

select 'inference_scenarios', inference.scenario_id, 'source_url'
from stg_curated__inference_scenarios as inference
where inference.source_url is null

union all

select 'inference_scenarios', inference.scenario_id, 'claim_source_url'
from stg_curated__inference_scenarios as inference
where (inference.claimed_ratio is not null
        or inference.claimed_usd_per_million_output_tokens is not null)
    and inference.claim_source_url is null

union all

select 'training_runs', runs.run_id, 'source_url'
from stg_curated__training_runs as runs
where runs.source_url is null

union all

select 'training_runs', runs.run_id, 'mfu_source_url'
from stg_curated__training_runs as runs
where runs.reported_mfu is not null
    and runs.mfu_source_url is null

union all

select 'training_runs', runs.run_id, 'shape_source_url'
from stg_curated__training_runs as runs
where (runs.n_layers is not null or runs.d_model is not null or runs.seq_len is not null)
    and runs.shape_source_url is null

union all

select 'cost_presets', presets.preset_id, 'source_url'
from stg_curated__cost_presets as presets
where presets.source_url is null

union all

select 'training_runs', runs.run_id, 'confidence (high or low) and confidence_basis'
from stg_curated__training_runs as runs
where runs.confidence not in ('high', 'low') or runs.confidence_basis is null

union all

select 'scale_up_domains', domains.accelerator_id, 'source_url'
from stg_curated__scale_up_domains as domains
where domains.source_url is null

union all

select 'analyst_gpu_costs', costs.accelerator_id || ' ' || costs.price_basis,
    'source_url, price_date, basis_note, a basis_kind of owned or estimated and a catalogued accelerator'
from stg_curated__analyst_gpu_costs as costs
left join stg_curated__accelerators as accelerators using (accelerator_id)
where costs.source_url is null or costs.price_date is null or costs.basis_note is null
    or costs.basis_kind not in ('owned', 'estimated')
    or accelerators.accelerator_id is null
