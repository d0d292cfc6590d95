-- one row per inference-cost scenario (catalog/inference_scenarios.csv), typed: the model
-- served, its precision and batch, and optionally a vendor's claim: a ratio between a
-- platform (accelerator) and a baseline (baseline_accelerator), or an absolute USD per million
-- tokens on the platform.

select
    scenario_id,
    question,
    accelerator,
    nullif(name_key(accelerator), '') as accelerator_key,
    baseline_accelerator,
    nullif(name_key(baseline_accelerator), '') as baseline_accelerator_key,
    * exclude (scenario_id, question, accelerator, baseline_accelerator) replace (
        coalesce(lower(precision), 'bf16') as precision,
        coalesce(lower(kv_precision), 'bf16') as kv_precision,
        coalesce(context_tokens, 0) as context_tokens,
        coalesce(batch_size, 1) as batch_size,
        lower(claim_kind) as claim_kind,
        lower(benchmark) as benchmark
    )
from curated.inference_scenarios
