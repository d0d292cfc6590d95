-- one row per fetch attempt of a source (live or replayed, successful or not).

with

source as (

    select * from raw.fetches

),

renamed as (

    select
        ---------- ids
        source.fetch_id,
        source.run_id,
        source.source,
        coalesce(source.stream, '') as stream,
        source.sha256,

        ---------- how and what
        source.mode as fetch_mode,
        source.url,
        source.payload_name,
        source.payload_path,
        source.http_status,
        source.bytes as payload_bytes,

        ---------- outcome
        lower(source.status) as status,
        source.rows_loaded,
        source.rows_rejected,
        source.error_type,
        source.error,

        ---------- timestamps
        source.started_at,
        source.finished_at,
        source.observed_at,
        -- option | payload | file_name | fetch_time | ingest_time (date unknown); null for
        -- fetches recorded before the column existed
        source.observed_at_basis,
        -- day | month (an approximate date: observed_at is the month's first instant); null
        -- when the date is unknown (ingest_time); a fetch recorded before the column existed
        -- was dated to the day
        case
            when source.observed_at_basis is distinct from 'ingest_time'
                then coalesce(source.observed_at_precision, 'day')
        end as observed_at_precision

    from source

)

select * from renamed
