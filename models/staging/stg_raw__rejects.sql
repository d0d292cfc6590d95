-- one row per row a parser or a plausibility gate refused, with the reason.

with

source as (

    select * from raw.rejects

),

renamed as (

    select
        ---------- ids
        source.fetch_id,
        source.source,

        ---------- why
        source.reason,
        source.detail,
        source.raw_row,

        ---------- timestamps
        source.observed_at

    from source

)

select * from renamed
