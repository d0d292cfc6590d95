-- one row per prong of an export-control classification (catalog/export_control_thresholds.csv:
-- ECCN 3A090 under the October 2023 rule), thresholds as numbers.
-- A prong holds when tpp_min <= tpp < tpp_max and pd_min <= performance density < pd_max
-- (an empty bound is no bound); applies_to 'data_center' prongs do not apply to parts not
-- designed or marketed for data centers (Note 2 to 3A090).

select * replace (lower(applies_to) as applies_to) from curated.export_control_thresholds
