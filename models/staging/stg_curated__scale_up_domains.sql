-- one row per accelerator with a scale-up fabric (catalog/scale_up_domains.csv), typed: how
-- many accelerators share the high-bandwidth domain tensor parallelism runs in (NVLink /
-- NVSwitch server or rack, Infinity Fabric platform, TPU ICI pod, NeuronLink instance), the
-- link, its bandwidth per accelerator and the source of each figure.

with

source as (

    select * from curated.scale_up_domains

),

renamed as (

    select
        nullif(trim(source.accelerator_id), '') as accelerator_id,
        cast(nullif(trim(source.domain_size), '') as integer) as domain_size,
        nullif(trim(source.link), '') as link,
        cast(nullif(trim(source.bandwidth_gbps), '') as double) as bandwidth_gbps,
        nullif(trim(source.source_url), '') as source_url,
        nullif(trim(source.note), '') as note
    from source

)

select * from renamed
