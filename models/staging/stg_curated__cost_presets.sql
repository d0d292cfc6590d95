-- one row per named cost-breakdown preset (catalog/cost_presets.csv), typed. A null figure
-- falls back to the catalog assumption of the same meaning in the marts.

select * replace (lower(hardware_method) as hardware_method) from curated.cost_presets
