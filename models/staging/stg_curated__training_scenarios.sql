-- one row per training-cost scenario (catalog/training_scenarios.csv): a question the cost
-- models answer, typed. Empty strings become null; accelerator_key is the normalised alias
-- (lowercase letters and digits) of the pinned accelerator, null = every accelerator.

select
    scenario_id,
    question,
    accelerator,
    nullif(name_key(accelerator), '') as accelerator_key,
    * exclude (scenario_id, question, accelerator) replace (
        coalesce(lower(precision), 'bf16') as precision,
        coalesce(images, 0) as images,
        coalesce(tokens_per_image, 0) as tokens_per_image,
        coalesce(vision_params, 0) as vision_params,
        coalesce(vision_frozen, false) as vision_frozen
    )
from curated.training_scenarios
