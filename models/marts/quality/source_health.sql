-- one row per source (every registered source, fetched or not, every other source ever
-- fetched, and the curated 'reference' prices): its kind, last success and failure (and last
-- live success), the last fetch's status, the last error, how many rows are in force, where
-- they came from (a live fetch or a replayed file) and how old the newest of them is (at
-- build time), fetch counts, and its health (`gpucost sources` shows it).
--
-- * a fetch succeeded when its status is ok, replayed or unchanged and it carries no error;
--   it failed when its status is failed or it carries an error (a refused payload).
-- * last_error_type / last_error are those of the most recent failed fetch (which may be
--   older than the last success; compare last_failure_at with last_success_at).
-- * rows_in_force counts price, spec and throughput observations and system descriptions of
--   the fetches in force, and every exchange rate stored of a stream in force (ecb_fx); for
--   'reference', the reference prices in use (not superseded by a scraped offer).
-- * data_origin: a fetch in force is live when it was fetched live, or when a successful live
--   fetch of the same source and stream returned the same payload (sha256); else replayed
--   (loaded from a file by `gpucost ingest`).
-- * newest_observed_at / data_age_days: the newest time the data in force was seen to be
--   true, counting an identical ('unchanged') refetch as a new observation of the same rows.
--   A replayed file is dated by its own observation date (--observed-at, the date the
--   payload states, or the date in its file name); when it has none, the loader stamps it
--   with the time of the ingest, which is not an observation: an observed_at of a replay
--   fetch later than that fetch's start is left out (the age is null when nothing else
--   dates the data).
-- * health: the macro source_health_label at its default maximum age of 2 days (`gpucost
--   sources --max-age-days N` calls it with N): never fetched, curated, failing, replayed,
--   stale (live data older than the maximum age, or undated) or ok.
--
-- columns:
--   source: registry name of the source, or 'reference' for the curated reference prices
--   kind: what the source provides (prices, specs, throughput; from the source registry,
--     catalog/sources/; 'prices' for reference); null for a source no longer registered
--   last_success_at [timestamp (UTC)]: end of the last successful fetch (ok, replayed or
--     unchanged)
--   last_failure_at [timestamp (UTC)]: end of the last failed or refused fetch
--   last_live_success_at [timestamp (UTC)]: end of the last successful live fetch (null: no
--     live fetch of this source has ever succeeded)
--   last_status: status of the most recent fetch (ok, replayed, unchanged, failed; 'curated' for
--     reference)
--   last_error_type: named error class of the most recent failure (HttpStatusError, ...)
--   last_error: error message of the most recent failure (scraped or network text)
--   rows_in_force [rows]: price, spec and throughput observations, system descriptions and exchange
--     rates (ecb_fx: every rate stored) of this
--     source in force
--   data_origin: where the data in force came from: live, replayed (files loaded by `gpucost
--     ingest`, never confirmed by a live fetch), mixed (some streams each), curated
--     (reference); null when no data is in force
--   newest_observed_at [timestamp (UTC)]: newest time the data in force was seen to be true
--   data_age_days [days]: age of newest_observed_at when the warehouse was built
--   fetches_total [fetches]: fetches recorded for this source
--   fetches_failed [fetches]: failed or refused fetches recorded for this source
--   health: ok, stale (live data older than 2 days, or undated), replayed, failing, never
--     fetched (registered, no fetch recorded: every other column but kind is null, the
--     fetch counts 0) or curated (reference); see source_health_label

with

fetches as (

    select * from stg_raw__fetches

),

fetches_in_force as (

    select * from int_fetches_in_force

),

price_snapshots as (

    select * from int_price_snapshots_current

),

spec_observations as (

    select * from stg_raw__spec_observations

),

throughput_observations as (

    select * from stg_raw__throughput_observations

),

system_descriptions as (

    select * from stg_raw__system_descriptions

),

training_runs as (

    select * from stg_raw__training_runs

),

training_scaling_factors as (

    select * from stg_raw__training_scaling_factors

),

serving_sweep_points as (

    select * from stg_raw__serving_sweep_points

),

fx_observations as (

    select * from stg_raw__fx_observations

),

offers as (

    select * from int_offers_mapped

),

registered_sources as (

    select * from stg_curated__sources

),

classified_fetches as (

    select
        fetches.*,
        fetches.status in ('ok', 'replayed', 'unchanged')
            and fetches.error_type is null as is_success,
        fetches.status = 'failed' or fetches.error_type is not null as is_failure
    from fetches

),

fetch_counts as (

    select
        classified_fetches.source,
        count(*) as fetches_total,
        count(*) filter (where classified_fetches.is_failure) as fetches_failed,
        max(coalesce(classified_fetches.finished_at, classified_fetches.started_at))
            filter (where classified_fetches.is_success) as last_success_at,
        max(coalesce(classified_fetches.finished_at, classified_fetches.started_at))
            filter (
                where classified_fetches.is_success
                and classified_fetches.fetch_mode = 'live'
            ) as last_live_success_at,
        max(coalesce(classified_fetches.finished_at, classified_fetches.started_at))
            filter (where classified_fetches.is_failure) as last_failure_at
    from classified_fetches
    group by classified_fetches.source

),

last_fetches as (

    select
        classified_fetches.source,
        classified_fetches.status as last_status
    from classified_fetches
    qualify row_number() over (
        partition by classified_fetches.source
        order by classified_fetches.started_at desc, classified_fetches.fetch_id desc
    ) = 1

),

last_failures as (

    select
        classified_fetches.source,
        classified_fetches.error_type as last_error_type,
        classified_fetches.error as last_error
    from classified_fetches
    where classified_fetches.is_failure
    qualify row_number() over (
        partition by classified_fetches.source
        order by classified_fetches.started_at desc, classified_fetches.fetch_id desc
    ) = 1

),

-- an observation time that can date the data: a replay fetch's time stamps later than the
-- fetch's start are the loader's stand-in for an unknown date (see header)
dated_fetches as (

    select
        classified_fetches.fetch_id,
        classified_fetches.source,
        classified_fetches.stream,
        classified_fetches.sha256,
        classified_fetches.fetch_mode,
        classified_fetches.is_success,
        classified_fetches.started_at,
        case
            when classified_fetches.fetch_mode <> 'replay' then
                coalesce(classified_fetches.observed_at, classified_fetches.finished_at)
            when classified_fetches.observed_at <= classified_fetches.started_at then
                classified_fetches.observed_at
        end as dated_observed_at
    from classified_fetches

),

in_force_fetches as (

    select
        fetches_in_force.source,
        fetches_in_force.fetch_id,
        in_force_fetch.fetch_mode = 'live'
            or coalesce(bool_or(same_payload.fetch_mode = 'live'), false) as is_live,
        max(same_payload.dated_observed_at) as confirmed_observed_at
    from fetches_in_force
    inner join dated_fetches as in_force_fetch
        on in_force_fetch.fetch_id = fetches_in_force.fetch_id
    left join dated_fetches as same_payload
        on same_payload.source = fetches_in_force.source
        and same_payload.stream = fetches_in_force.stream
        and same_payload.sha256 = fetches_in_force.sha256
        and same_payload.is_success
    group by fetches_in_force.source, fetches_in_force.fetch_id, in_force_fetch.fetch_mode

),

rows_in_force as (

    select
        price_snapshots.fetch_id,
        price_snapshots.observed_at
    from price_snapshots
    union all
    select
        spec_observations.fetch_id,
        spec_observations.observed_at
    from spec_observations
    union all
    select
        throughput_observations.fetch_id,
        throughput_observations.observed_at
    from throughput_observations
    union all
    select
        system_descriptions.fetch_id,
        system_descriptions.observed_at
    from system_descriptions
    union all
    select
        training_runs.fetch_id,
        training_runs.observed_at
    from training_runs
    union all
    select
        training_scaling_factors.fetch_id,
        training_scaling_factors.observed_at
    from training_scaling_factors
    union all
    select
        serving_sweep_points.fetch_id,
        serving_sweep_points.observed_at
    from serving_sweep_points
    union all
    -- exchange rates accumulate: every rate its stream has stored counts for the stream's
    -- fetch in force (a refetch writes only the new days, raw.fx_observations)
    select
        fx_stream_in_force.fetch_id,
        fx_observations.observed_at
    from fx_observations
    inner join fetches_in_force as fx_stream_in_force
        on fx_stream_in_force.source = fx_observations.source
        and fx_stream_in_force.stream = fx_observations.stream

),

in_force_stats as (

    select
        in_force_fetches.source,
        count(*) as rows_in_force,
        case
            when bool_and(in_force_fetches.is_live) then 'live'
            when bool_or(in_force_fetches.is_live) then 'mixed'
            else 'replayed'
        end as data_origin,
        max(greatest(
            case
                when in_force_fetches.is_live
                    or rows_in_force.observed_at <= dated_fetches.started_at
                    then rows_in_force.observed_at
            end,
            in_force_fetches.confirmed_observed_at
        )) as newest_observed_at
    from in_force_fetches
    inner join dated_fetches
        on dated_fetches.fetch_id = in_force_fetches.fetch_id
    inner join rows_in_force
        on rows_in_force.fetch_id = in_force_fetches.fetch_id
    group by in_force_fetches.source

),

fetched_sources as (

    select
        fetch_counts.source,
        fetch_counts.last_success_at,
        fetch_counts.last_live_success_at,
        fetch_counts.last_failure_at,
        last_fetches.last_status,
        last_failures.last_error_type,
        last_failures.last_error,
        coalesce(in_force_stats.rows_in_force, 0) as rows_in_force,
        in_force_stats.data_origin,
        in_force_stats.newest_observed_at,
        fetch_counts.fetches_total,
        fetch_counts.fetches_failed
    from fetch_counts
    left join last_fetches
        on last_fetches.source = fetch_counts.source
    left join last_failures
        on last_failures.source = fetch_counts.source
    left join in_force_stats
        on in_force_stats.source = fetch_counts.source

),

reference_source as (

    select
        'reference' as source,
        cast(null as timestamptz) as last_success_at,
        cast(null as timestamptz) as last_live_success_at,
        cast(null as timestamptz) as last_failure_at,
        'curated' as last_status,
        cast(null as varchar) as last_error_type,
        cast(null as varchar) as last_error,
        count(*) as rows_in_force,
        'curated' as data_origin,
        max(offers.observed_at) as newest_observed_at,
        0 as fetches_total,
        0 as fetches_failed
    from offers
    where offers.source = 'reference'

),

-- registered, but no fetch recorded: the fetch counts are 0, every other figure null
never_fetched_sources as (

    select
        registered_sources.source,
        0 as fetches_total,
        0 as fetches_failed
    from registered_sources
    anti join fetch_counts
        on fetch_counts.source = registered_sources.source

),

all_sources as (

    select * from fetched_sources
    union all by name
    select * from reference_source
    union all by name
    select * from never_fetched_sources

),

aged_sources as (

    select
        all_sources.*,
        epoch(now() - all_sources.newest_observed_at) / 86400.0 as data_age_days
    from all_sources

),

final as (

    select
        aged_sources.source,
        coalesce(
            registered_sources.kind,
            case when aged_sources.source = 'reference' then 'prices' end
        ) as kind,
        aged_sources.last_success_at,
        aged_sources.last_live_success_at,
        aged_sources.last_failure_at,
        aged_sources.last_status,
        aged_sources.last_error_type,
        aged_sources.last_error,
        aged_sources.rows_in_force,
        aged_sources.data_origin,
        aged_sources.newest_observed_at,
        aged_sources.data_age_days,
        aged_sources.fetches_total,
        aged_sources.fetches_failed,
        source_health_label(
            aged_sources.last_status, aged_sources.data_origin, aged_sources.data_age_days
        ) as health
    from aged_sources
    left join registered_sources
        on registered_sources.source = aged_sources.source

)

select * from final
order by final.source
