-- one row per source x stream: the fetch whose observations are in force.
--
-- * a successful fetch: status ok, replayed or unchanged, with no error. A good fetch: status
--   ok or replayed, no error, rows loaded. Failed and refused fetches (status failed, or an
--   error_type such as RowCountCollapseError) never displace the data in force; nor does a
--   fetch observed more than a day in the future (the loader refuses those since issue
--   "Hostile input"; a raw layer written before may still hold one).
-- * recency is observed_at (when the prices were true), then fetch_id, as in the loader: a
--   backfill replayed today of an older payload does not displace newer data.
-- * a price payload replayed from a file that states no date (observed_at_basis
--   'ingest_time') has no recency: a dated good fetch of the same stream is always preferred to
--   it, and where a stream has only undated good fetches, every one of them is in force (which
--   is newer is unknown: never decided by the order or the names of the files ingested; the
--   offers mart then keeps, per offer, the cheapest). observed_at_known says which kind is in
--   force. Specs and measured results keep the ingest order (a republished result replaces
--   its predecessor).
-- * in force: the good fetch carrying the payload (sha256) of the latest successful fetch,
--   else the latest good fetch. So a payload that comes back after another one (A, B, A: the
--   loader records the second A as 'unchanged' and loads no rows) puts A's rows back in force.
-- * as of a day (the session variable gpucost_as_of, set only by `gpucost offers --as-of`;
--   a build leaves it unset and this filter away): a fetch counts only when its prices were
--   observed by that instant: a dated fetch by its observed_at (or, when its rows carry
--   their own dates, such as a daily price history, by its rows dated by then), a month-dated
--   one by the end of its month (or its load, when earlier), a file replayed without any date
--   by the time it was loaded (its prices were true some time before). docs/offers.md.
-- * confirmed_at: the newest finished_at of any successful fetch of the same source, stream
--   and payload (an 'unchanged' refetch confirms freshness); confirmed_observed_at: the newest
--   observed_at among those fetches (when the prices in force were last seen to be true).

with

fetches as (

    select * from stg_raw__fetches

),

registered_sources as (

    select * from stg_curated__sources

),

successful_fetches as (

    select
        fetches.*,
        fetches.observed_at_basis is distinct from 'ingest_time' as is_dated,
        -- recency is known: a dated fetch, or any fetch of a spec or results source
        fetches.observed_at_basis is distinct from 'ingest_time'
        or coalesce(registered_sources.kind, 'prices') <> 'prices' as has_recency
    from fetches
    left join registered_sources using (source)
    where fetches.status in ('ok', 'replayed', 'unchanged')
        and fetches.error_type is null
        and coalesce(fetches.observed_at, fetches.finished_at, fetches.started_at)
            <= current_timestamp + interval 1 day
        -- as of a past day (`gpucost offers --as-of`: the variable gpucost_as_of; unset in a
        -- build): only fetches whose prices were observed by then
        and (
            getvariable('gpucost_as_of') is null
            or case
                -- only the month is known: observed by its last instant, or by the load
                when fetches.observed_at_precision = 'month'
                    then least(
                        fetches.observed_at + interval 1 month - interval 1 microsecond,
                        fetches.finished_at
                    )
                -- a date, or for a file replayed without any date its load (ingest) time
                else coalesce(fetches.observed_at, fetches.finished_at, fetches.started_at)
            end <= getvariable('gpucost_as_of')
            -- a dated payload whose rows carry their own dates (a daily price history, dated
            -- by its newest row): by its rows observed by then (int_price_snapshots_current
            -- keeps only those); with the variable unset this is an empty result, no scan
            or (
                fetches.observed_at_precision = 'day'
                and exists (
                    select 1 from stg_raw__price_observations as dated_rows
                    where dated_rows.fetch_id = fetches.fetch_id
                        and dated_rows.observed_at <= getvariable('gpucost_as_of')
                )
            )
        )

),

latest_successful as (

    select
        successful_fetches.source,
        successful_fetches.stream,
        successful_fetches.sha256
    from successful_fetches
    qualify row_number() over (
        partition by successful_fetches.source, successful_fetches.stream
        order by
            successful_fetches.has_recency desc,
            case when successful_fetches.has_recency then coalesce(
                successful_fetches.observed_at,
                successful_fetches.finished_at,
                successful_fetches.started_at
            ) end desc nulls last,
            successful_fetches.fetch_id desc
    ) = 1

),

good_fetches as (

    select * from successful_fetches
    where successful_fetches.status in ('ok', 'replayed')
        and successful_fetches.rows_loaded > 0

),

in_force as (

    select good_fetches.*
    from good_fetches
    left join latest_successful using (source, stream)
    qualify row_number() over (
        partition by good_fetches.source, good_fetches.stream
        order by
            good_fetches.has_recency desc,
            coalesce(good_fetches.sha256 = latest_successful.sha256, false) desc,
            case when good_fetches.has_recency then coalesce(
                good_fetches.observed_at, good_fetches.finished_at, good_fetches.started_at
            ) end desc nulls last,
            good_fetches.fetch_id desc
    ) = 1
        -- a stream known only from undated price files: all of them
        or not bool_or(good_fetches.has_recency) over (
            partition by good_fetches.source, good_fetches.stream
        )

),

confirmations as (

    select
        in_force.fetch_id,
        max(same_payload.finished_at) as confirmed_at,
        max(coalesce(same_payload.observed_at, same_payload.finished_at))
            as confirmed_observed_at
    from in_force
    inner join successful_fetches as same_payload using (source, stream, sha256)
    group by in_force.fetch_id

),

final as (

    select
        in_force.source,
        in_force.stream,
        in_force.fetch_id,
        in_force.sha256,
        in_force.status,
        in_force.rows_loaded,
        in_force.observed_at,
        in_force.is_dated as observed_at_known,
        in_force.finished_at as loaded_at,
        greatest(confirmations.confirmed_at, in_force.finished_at) as confirmed_at,
        greatest(confirmations.confirmed_observed_at, in_force.observed_at)
            as confirmed_observed_at
    from in_force
    left join confirmations using (fetch_id)

)

select * from final
