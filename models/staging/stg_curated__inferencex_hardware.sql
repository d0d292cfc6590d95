-- one row per InferenceX results folder whose files do not state the hardware they ran on
-- (catalog/inferencex_hardware.csv): the accelerator and how many served the model, each with
-- the address of the file in the same repository that says so (a serve script). A serving
-- sweep point takes it when its repository_path starts with path_prefix.

with

source as (

    select * from curated.inferencex_hardware

),

renamed as (

    select
        ---------- ids
        trim(source.path_prefix) as path_prefix,

        ---------- the hardware
        trim(source.accelerator_name) as accelerator_name,
        cast(source.gpus as double) as gpus,

        ---------- provenance
        nullif(trim(source.source_url), '') as source_url,
        nullif(trim(source.note), '') as note

    from source

)

select * from renamed
