-- one row per cost-model assumption (catalog/assumptions.csv), value as a number.

select * rename (key as assumption_key) from curated.assumptions
