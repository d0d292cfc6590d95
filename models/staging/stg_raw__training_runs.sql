-- one row per timed run of an MLPerf Training result (raw.training_runs), per fetch: when the
-- run started and stopped, how it ended and what it trained.

with

source as (

    select * from raw.training_runs

),

renamed as (

    select
        ---------- ids
        source.fetch_id,
        source.source,
        source.round,
        source.division,
        source.submitter,
        source.system,
        source.benchmark,
        source.run,

        ---------- the run
        source.run_start,
        source.run_stop,
        epoch(source.run_stop - source.run_start) as run_seconds,
        source.status,
        source.samples,
        source.tokens,
        source.tokens_basis,
        source.global_batch_size,
        source.seq_len,

        ---------- timestamps
        source.observed_at

    from source

)

select * from renamed
