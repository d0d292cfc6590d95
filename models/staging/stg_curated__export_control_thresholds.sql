-- one row per prong of an export-control classification (catalog/export_control_thresholds.csv:
-- ECCN 3A090 under the October 2023 rule), thresholds as numbers.
-- A prong holds when tpp_min <= tpp < tpp_max and pd_min <= performance density < pd_max
-- (an empty bound is no bound); applies_to 'data_center' prongs do not apply to parts not
-- designed or marketed for data centers (Note 2 to 3A090).

with

source as (

    select * from curated.export_control_thresholds

),

renamed as (

    select
        ---------- ids
        nullif(trim(source.eccn), '') as eccn,
        nullif(trim(source.prong), '') as prong,

        ---------- thresholds
        cast(nullif(trim(source.tpp_min), '') as double) as tpp_min,
        cast(nullif(trim(source.tpp_max), '') as double) as tpp_max,
        cast(nullif(trim(source.pd_min), '') as double) as pd_min,
        cast(nullif(trim(source.pd_max), '') as double) as pd_max,
        lower(nullif(trim(source.applies_to), '')) as applies_to,

        ---------- provenance
        nullif(trim(source.rule_text), '') as rule_text,
        nullif(trim(source.source_url), '') as source_url,
        nullif(trim(source.note), '') as note

    from source

)

select * from renamed
