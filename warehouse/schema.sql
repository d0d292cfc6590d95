-- The raw layer: observations, never overwritten. Lives in warehouse/data/raw.duckdb and is
-- attached read-only as catalog `raw` when the models are built.

create sequence if not exists fetch_id_seq start 1;

-- one row per payload fetched live or replayed from a file (and per failed attempt)
create table if not exists fetches (
    fetch_id bigint primary key default nextval('fetch_id_seq'),
    run_id varchar not null,            -- one id per refresh / ingest invocation
    source varchar not null,            -- registry name of the source module
    stream varchar,                     -- sub-feed of the source (cloud, region, page kind)
    mode varchar not null,              -- live | replay
    url varchar,                        -- where the bytes came from (URL or file name)
    payload_name varchar,
    started_at timestamptz not null,
    finished_at timestamptz,
    observed_at timestamptz,            -- when the prices/specs were true
    status varchar not null,            -- ok | replayed | unchanged | failed
    http_status integer,
    bytes bigint,
    sha256 varchar,
    payload_path varchar,               -- relative to the data dir
    rows_loaded integer not null default 0,
    rows_rejected integer not null default 0,
    error_type varchar,                 -- the named error class when status = failed
    error varchar
);

create table if not exists price_observations (
    fetch_id bigint not null,
    source varchar not null,
    provider varchar not null,
    sku varchar not null,
    region varchar not null,
    pricing_model varchar not null,
    os varchar,
    currency varchar not null,
    price_per_hour double,              -- whole instance, in currency
    gpu_name_raw varchar,
    gpu_count double,                   -- may be fractional
    gpu_memory_gb double,
    vcpus double,
    ram_gb double,
    observed_at timestamptz not null
);

create table if not exists spec_observations (
    fetch_id bigint not null,
    source varchar not null,
    accelerator_name_raw varchar not null,
    metric varchar not null,
    value double not null,
    unit varchar,
    observed_at timestamptz not null
);

create table if not exists rejects (
    fetch_id bigint not null,
    source varchar not null,
    reason varchar not null,
    detail varchar,
    raw_row varchar,
    observed_at timestamptz
);

-- marketplace aggregates (Vast): offers behind a bucket and its 10th / 90th percentile offer
-- (price_per_hour is then the median offer); added after the first release, hence ALTER
alter table price_observations add column if not exists offer_count integer;
alter table price_observations add column if not exists price_p10_per_hour double;
alter table price_observations add column if not exists price_p90_per_hour double;
-- what the price buys (catalog/records.py PRICE_KINDS): instance (a whole machine, and every
-- row loaded before the column existed), gpu_with_host, gpu_only, gpu_component,
-- shape_per_gpu
alter table price_observations add column if not exists price_kind varchar default 'instance';
-- how a commitment is paid where the payload states it (catalog/records.py PAYMENTS:
-- no_upfront, partial_upfront, all_upfront; null = not stated), and whether the offer can be
-- launched now where the payload states it (a stock flag; null = not stated)
alter table price_observations add column if not exists payment varchar;
alter table price_observations add column if not exists available boolean;
-- where fetches.observed_at came from: option (--observed-at), payload (a date the payload
-- states: a Wayback capture, row dates), file_name (a date in the replayed file's name),
-- fetch_time (a live fetch) or ingest_time (a replayed file that states no date: its
-- observation date is unknown, and the time of the ingest stands in for it)
alter table fetches add column if not exists observed_at_basis varchar;
-- how precisely observed_at is known: day (a date or an instant) | month (a replayed file whose
-- data README gives only an approximate period, `--observed-at YYYY-MM`: observed_at is the
-- month's first instant, never fresher than the observation may be); null for a file replayed
-- without any date (basis ingest_time) and for fetches recorded before the column existed
alter table fetches add column if not exists observed_at_precision varchar;

-- one row per day x offer key (source, provider, sku, region, pricing_model, os): the daily
-- rollup of price_observations with a known price, maintained by the loader for the rows it
-- loads (and for 'unchanged' refetches of a snapshot), so the history marts never rescan
-- every observation. price_per_hour is the last price seen that day (by observed_at).
create table if not exists price_daily (
    day date not null,                  -- UTC day of observed_at
    source varchar not null,
    provider varchar not null,
    sku varchar not null,
    region varchar not null,
    pricing_model varchar not null,
    os varchar not null,
    currency varchar not null,
    price_per_hour double not null,     -- the last price observed that day (instance)
    min_price_per_hour double not null,
    max_price_per_hour double not null,
    gpu_name_raw varchar,
    gpu_count double,
    n_observations integer not null,    -- observation rows rolled into this day
    first_observed_at timestamptz not null,
    last_observed_at timestamptz not null,
    last_fetch_id bigint not null,
    primary key (day, source, provider, sku, region, pricing_model, os)
);
-- how the commitment of the day's last observation is paid, where stated (catalog/records.py
-- PAYMENTS; null = not stated or a row rolled up before the column existed)
alter table price_daily add column if not exists payment varchar;

-- measured benchmark results (source mlperf_results): one row per LoadGen summary, i.e. one
-- system x benchmark x scenario of one round; value is for the whole system under test
create table if not exists throughput_observations (
    fetch_id bigint not null,
    source varchar not null,
    round varchar not null,             -- v4.0, v5.1, ...
    division varchar not null,          -- closed | open | network
    submitter varchar not null,
    system varchar not null,            -- the system id (results/<system>/)
    benchmark varchar not null,         -- model key: llama2-70b, gpt-oss-120b, ...
    accuracy_target varchar not null,   -- 99 | 99.9 | '' (separate benchmark folders)
    scenario varchar not null,          -- Offline | Server | Interactive
    metric varchar not null,            -- tokens_per_second | samples_per_second
    value double not null,
    valid boolean not null,
    ttft_limit_ms double,
    tpot_limit_ms double,
    observed_at timestamptz not null
);

-- one timed run of an MLPerf Training result (an MLLOG result_N.txt): start, stop, what it
-- trained. The score (drop fastest and slowest, mean, x scaling factor) is computed in SQL.
create table if not exists training_runs (
    fetch_id bigint not null,
    source varchar not null,
    round varchar not null,             -- v4.0, v5.1, ...
    division varchar not null,          -- closed | open
    submitter varchar not null,
    system varchar not null,            -- the system id (results/<system>/)
    benchmark varchar not null,         -- gpt3 | llama2_70b_lora | llama31_8b | llama31_405b
    run varchar not null,               -- the run's file stem (result_0, result_01, ...)
    run_start timestamptz not null,
    run_stop timestamptz not null,
    status varchar not null,            -- success | aborted
    samples double,                     -- sequences trained (run_stop samples_count)
    tokens double,                      -- tokens trained in the timed interval
    tokens_basis varchar,
    global_batch_size double,
    seq_len double,
    observed_at timestamptz not null
);

-- the RCP normalisation factor of one training result (scaling.json)
create table if not exists training_scaling_factors (
    fetch_id bigint not null,
    source varchar not null,
    round varchar not null,
    division varchar not null,
    submitter varchar not null,
    system varchar not null,
    benchmark varchar not null,
    scaling_factor double not null,
    observed_at timestamptz not null
);

-- measured mean latencies of a Server/Interactive result (issue 26)
alter table throughput_observations add column if not exists ttft_mean_ms double;
alter table throughput_observations add column if not exists tpot_mean_ms double;

-- one concurrency point of a serving sweep (InferenceX / vLLM benchmark_serving): what the
-- whole server delivered and the speed a user saw; the hardware a file does not state is null
-- here (catalog/inferencex_hardware.csv cites it)
create table if not exists serving_sweep_points (
    fetch_id bigint not null,
    source varchar not null,
    sweep varchar not null,             -- <owner>/<repo>/<path of the sweep>
    model varchar not null,
    hardware_raw varchar,               -- as the file spells it; null when it does not say
    gpus double,                        -- as stated; null when not stated
    framework varchar,
    precision varchar,
    input_len double,
    output_len double,
    concurrency double not null,
    output_tokens_per_second double not null,  -- whole server
    total_tokens_per_second double,             -- whole server, input + output
    output_tokens_per_second_per_gpu_stated double,  -- the file's own per-GPU figure
    tokens_per_second_per_user double,
    interactivity_basis varchar not null,  -- 'interactivity' | '1 / median_tpot'
    mean_ttft_ms double,
    median_ttft_ms double,
    p99_ttft_ms double,
    mean_tpot_ms double,
    median_tpot_ms double,
    p99_tpot_ms double,
    requests_completed double,
    observed_at timestamptz not null
);

-- what a benchmarked system is (systems/<system>.json): accelerators and software
create table if not exists system_descriptions (
    fetch_id bigint not null,
    source varchar not null,
    round varchar not null,
    division varchar not null,
    submitter varchar not null,
    system varchar not null,
    system_name varchar,
    accelerator_name_raw varchar not null,
    accelerators_per_node double not null,
    number_of_nodes double not null,
    availability varchar,
    framework varchar,
    observed_at timestamptz not null
);

-- one euro reference rate (source ecb_fx, issue 41): units of `currency` per 1 EUR on
-- `rate_date`, as the ECB publishes it. A payload writes only the rates its stream has not
-- stored yet (the same currency, day and rate): the history file restates every day since 1999,
-- so a refetch adds the new days alone; fetch_id is the first fetch that stated the rate
create table if not exists fx_observations (
    fetch_id bigint not null,
    source varchar not null,
    currency varchar not null,
    rate_per_eur double not null,
    rate_date date not null,
    observed_at timestamptz not null
);
