-- one row per named cost-breakdown preset (catalog/cost_presets.csv), typed. A null figure
-- falls back to the catalog assumption of the same meaning in the marts.

with

source as (

    select * from curated.cost_presets

),

renamed as (

    select
        ---------- ids
        nullif(trim(source.preset_id), '') as preset_id,
        nullif(trim(source.description), '') as description,
        lower(nullif(trim(source.hardware_method), '')) as hardware_method,

        ---------- figures
        cast(nullif(trim(source.server_cost_overhead), '') as double) as server_cost_overhead,
        cast(nullif(trim(source.gpu_share_of_hardware), '') as double) as gpu_share_of_hardware,
        cast(nullif(trim(source.network_fraction_of_cluster), '') as double)
            as network_fraction_of_cluster,
        cast(nullif(trim(source.electricity_usd_per_kwh), '') as double)
            as electricity_usd_per_kwh,
        cast(nullif(trim(source.pue), '') as double) as pue,
        cast(nullif(trim(source.staff_share_of_total), '') as double) as staff_share_of_total,
        cast(nullif(trim(source.experiment_multiplier), '') as double) as experiment_multiplier,
        cast(nullif(trim(source.operating_period_days), '') as double) as operating_period_days,

        ---------- provenance
        nullif(trim(source.source_url), '') as source_url,
        nullif(trim(source.note), '') as note

    from source

)

select * from renamed
