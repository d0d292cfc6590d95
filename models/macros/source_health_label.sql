-- returns the health of a source (source_health, `gpucost sources`) from its last fetch's
-- status, where its data in force came from and how old that data is; the first that holds:
--   'never fetched': no fetch recorded (last_status null);
--   'curated': the curated reference prices (no fetch);
--   'failing': the last fetch failed (its last good data, if any, stays in force);
--   'replayed': the data in force came from files loaded with `gpucost ingest` and no live
--     fetch has returned it;
--   'stale': the data in force is live (or mixed) but older than max_age_days, or undated;
--   'ok': otherwise (a successful last fetch, live data at most max_age_days old).
-- max_age_days defaults to 2 (the `health` column of source_health; `gpucost sources
-- --max-age-days N` passes N).

create or replace macro source_health_label(
    last_status, data_origin, data_age_days, max_age_days := 2.0
) as
    case
        when last_status is null then 'never fetched'
        when last_status = 'curated' then 'curated'
        when last_status = 'failed' then 'failing'
        when data_origin = 'replayed' then 'replayed'
        when data_age_days is null or data_age_days > max_age_days then 'stale'
        else 'ok'
    end
