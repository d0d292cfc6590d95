-- one row per published training run (catalog/training_runs.csv), typed: what was trained,
-- on what, the GPU-hours and MFU its authors reported, and where each figure comes from.

select
    run_id,
    model,
    accelerator,
    name_key(accelerator) as accelerator_key,
    params_active,
    params_total,
    tokens,
    coalesce(lower(precision), 'bf16') as precision,
    coalesce(lower(recompute), 'none') as recompute,
    -- how far the reported figures can be trusted (decided by provenance only)
    coalesce(lower(confidence), 'low') as confidence,
    confidence_basis,
    reported_gpu_hours,
    gpu_hours_basis,
    n_gpus,
    -- the model's shape (attention FLOPs: training_flops), cited in shape_source_url
    n_layers,
    d_model,
    seq_len,
    reported_mfu,
    reported_mfu_basis,
    source_url,
    mfu_source_url,
    shape_source_url,
    note
from curated.training_runs
