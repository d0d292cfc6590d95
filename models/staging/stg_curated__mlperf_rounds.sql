-- one row per MLPerf round (catalog/mlperf_rounds.csv): the day MLCommons published its
-- results, with the page that says so. A result of the round is observed at that day.

with

source as (

    select * from curated.mlperf_rounds

),

renamed as (

    select
        ---------- ids
        lower(trim(source.suite)) as suite,
        trim(source.round) as round,

        ---------- the date
        cast(trim(source.published_on) as date) as published_on,

        ---------- provenance
        nullif(trim(source.source_url), '') as source_url,
        nullif(trim(source.note), '') as note

    from source

)

select * from renamed
