-- one row per MLPerf system whose systems/<system>.json is not published or could not be
-- obtained (catalog/mlperf_systems.csv), with the accelerator and count read from its
-- result page. A system description loaded by the source always wins over this row.

with

source as (

    select * from curated.mlperf_systems

),

renamed as (

    select
        ---------- ids
        trim(source.round) as round,
        trim(source.division) as division,
        trim(source.submitter) as submitter,
        trim(source.system) as system,
        trim(source.accelerator_name) as accelerator_name_raw,

        ---------- counts
        cast(source.accelerators_per_node as double) as accelerators_per_node,
        cast(source.number_of_nodes as double) as number_of_nodes,

        ---------- attributes
        nullif(trim(source.availability), '') as availability,
        nullif(trim(source.framework), '') as framework,

        ---------- provenance
        nullif(trim(source.source_url), '') as source_url,
        nullif(trim(source.note), '') as note

    from source

)

select * from renamed
