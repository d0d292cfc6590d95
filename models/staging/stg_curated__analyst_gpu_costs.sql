-- one row per accelerator x analyst cost basis (catalog/analyst_gpu_costs.csv): a cost or price
-- of one GPU-hour published by an analyst model, with its source. SemiAnalysis's AI Cloud TCO
-- Model and market pricing survey, as InferenceX prices its measured tokens: tco_hyperscaler and
-- tco_neocloud (total cost of ownership per GPU-hour, basis_kind owned), rental_3y_survey (the
-- 3-year rental market price, basis_kind estimated).

select * replace (lower(price_basis) as price_basis, lower(basis_kind) as basis_kind)
from curated.analyst_gpu_costs
