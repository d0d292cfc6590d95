-- one row per measured throughput-vs-interactivity point x price basis: how many tokens per
-- second a GPU generates when each user is served at a given speed (tokens/s per user), and
-- what a million tokens cost there. The batch-efficiency curve: more users per GPU raise the
-- throughput per GPU and lower the speed each user sees. Two kinds of measurement:
--
-- * MLPerf Inference Server and Interactive results (inference_throughput; closed division
--   and available hardware are `comparable`): one point per scenario of a system on a
--   benchmark, at the measured mean TPOT where the summary states it, else at the floor its
--   p99 TPOT limit guarantees (interactivity_basis 'tpot_bound'). Offline has no per-user
--   speed and is not a point;
-- * InferenceX serving sweeps (source inferencex, int_serving_sweeps): one point per
--   concurrency, as the file states throughput and per-user speed; hardware a file does not
--   state comes from a cited table.
--
-- A curve (curve_id) is one system on one model: its points are what `gpucost estimate
-- --inference --min-tokens-per-user N` interpolates between (macro throughput_at_interactivity).
-- Rental bases at the system's size (price_bases_by_size: GPUs per node rounded up to 1, 2, 4,
-- 8), owned and analyst costs at any size; a point without a price keeps one row.
--
-- columns:
--   curve_id: the system x model the point belongs to (its points form one curve)
--   measured_by: mlperf (an MLPerf Inference result) or inferencex (a serving sweep)
--   model: the model served: the MLPerf benchmark key, or the sweep's model id
--   accelerator_id: the catalog accelerator measured
--   accelerator_count [accelerators]: GPUs of the system
--   point: the point on its curve: the MLPerf scenario (Server, Interactive) or the sweep's
--     concurrency
--   concurrency [requests]: the sweep's concurrent requests; null for MLPerf
--   software: the serving stack (MLPerf software_family, the sweep's framework)
--   comparable: an MLPerf closed-division result on available hardware (the sweeps are not
--     peer-reviewed: false)
--   tokens_per_second_per_user [tokens/s per user]: the generation speed one user sees
--   interactivity_basis: measured (mean TPOT, or the sweep's own figure), tpot_bound (the floor
--     an MLPerf TPOT limit guarantees) or the sweep's basis words
--   tokens_per_second_per_gpu [tokens/s per GPU]: generated (output) tokens per second per GPU
--   on_frontier: no other point of the curve serves users at least as fast with at least as
--     much throughput per GPU (one of them strictly more): the points interpolation uses; a
--     dominated point (a noisy measurement) stays listed but is not interpolated through
--   observed_at [timestamp (UTC)]: when the point was measured (an MLPerf round's publication
--     day; the date a sweep file states)
--   source_url: where the measurement came from (MLPerf: the system's results folder; a
--     sweep: its file in its repository)
--   hardware_source_url: where a sweep's hardware is stated when its file does not say it
--   fetch_id: the raw.fetches row of the measurement
--   gpus_per_instance [GPUs]: the instance size the point is priced at
--   price_basis: a price basis of price_bases_by_size; null when the accelerator has no price
--   basis_kind: observed, estimated or owned
--   provider: the provider behind the basis (null for the median, owned and analyst bases)
--   price_per_gpu_hour [USD per GPU-hour]: the basis price of one GPU-hour
--   price_observed_at [timestamp (UTC)]: when the price was observed
--   usd_per_million_output_tokens [USD per million tokens]: price_per_gpu_hour /
--     (tokens_per_second_per_gpu x 3600) x 10^6: the whole GPU-hour charged to the output
--     tokens (input free; offer_token_costs calls it usd_per_million_output_tokens_all_in)
--   input_tokens_per_query [tokens]: mean input tokens per query: a sweep's stated input
--     length; for MLPerf, assumed (inference_default_input_tokens: MLPerf states none)
--   output_tokens_per_query [tokens]: mean output tokens per query: MLPerf tokens/s / samples/s;
--     a sweep's input length x output tokens/s / input tokens/s where it states total
--     throughput, else its stated output length (int_serving_sweeps)
--   token_counts_basis: where the two counts come from
--   usd_per_million_input_and_output_tokens [USD per million tokens]: price_per_gpu_hour /
--     (tokens_per_second_per_gpu x (input_tokens_per_query + output_tokens_per_query) /
--     output_tokens_per_query x 3600) x 10^6: the GPU-hour over every token it processed,
--     input and output alike (InferenceX's tput_per_gpu basis); not a split (no model shape
--     is catalogued for the sweeps' models: docs/cost-models.md)

with

assumed as (

    select max(cost_assumptions.value) as input_tokens_per_query
    from cost_assumptions
    where cost_assumptions.assumption_key = 'inference_default_input_tokens'

),

mlperf_points as (

    select
        'mlperf ' || inference_throughput.round || '/' || inference_throughput.division || '/'
            || inference_throughput.submitter || '/' || inference_throughput.system || '/'
            || inference_throughput.benchmark
            || coalesce('-' || nullif(inference_throughput.accuracy_target, ''), '')
            as curve_id,
        'mlperf' as measured_by,
        inference_throughput.benchmark as model,
        inference_throughput.accelerator_id,
        inference_throughput.accelerator_count,
        inference_throughput.accelerators_per_node,
        inference_throughput.scenario as point,
        cast(null as double) as concurrency,
        inference_throughput.software_family as software,
        inference_throughput.division = 'closed'
            and inference_throughput.availability = 'available' as comparable,
        inference_throughput.tokens_per_second_per_user,
        inference_throughput.interactivity_basis,
        inference_throughput.tokens_per_second_per_accelerator as tokens_per_second_per_gpu,
        assumed.input_tokens_per_query,
        inference_throughput.output_tokens_per_sample as output_tokens_per_query,
        'mlperf: output measured (tokens/s / samples/s), input assumed '
            || '(inference_default_input_tokens)' as token_counts_basis,
        inference_throughput.observed_at,
        inference_throughput.source_url,
        cast(null as varchar) as hardware_source_url,
        inference_throughput.fetch_id
    from inference_throughput
    cross join assumed
    where inference_throughput.valid
        and inference_throughput.scenario in ('Server', 'Interactive')
        and inference_throughput.accelerator_id is not null
        and inference_throughput.tokens_per_second_per_accelerator > 0
        and inference_throughput.tokens_per_second_per_user > 0

),

sweep_points as (

    select
        'inferencex ' || int_serving_sweeps.repository || ' ' || int_serving_sweeps.model
            || ' on ' || printf('%g', int_serving_sweeps.gpu_count) || 'x '
            || int_serving_sweeps.accelerator_id
            || coalesce(' ' || int_serving_sweeps.framework, '')
            || coalesce(' ' || int_serving_sweeps.precision, '')
            || ' in ' || coalesce(printf('%g', int_serving_sweeps.input_len), '?')
            || ' / out ' || coalesce(printf('%g', int_serving_sweeps.output_len), '?')
            as curve_id,
        'inferencex' as measured_by,
        int_serving_sweeps.model,
        int_serving_sweeps.accelerator_id,
        int_serving_sweeps.gpu_count as accelerator_count,
        int_serving_sweeps.gpu_count as accelerators_per_node,
        'concurrency ' || printf('%g', int_serving_sweeps.concurrency) as point,
        int_serving_sweeps.concurrency,
        int_serving_sweeps.framework as software,
        false as comparable,
        int_serving_sweeps.tokens_per_second_per_user,
        int_serving_sweeps.interactivity_basis,
        int_serving_sweeps.output_tokens_per_second_per_gpu as tokens_per_second_per_gpu,
        int_serving_sweeps.input_tokens_per_query,
        int_serving_sweeps.output_tokens_per_query,
        int_serving_sweeps.token_counts_basis,
        int_serving_sweeps.observed_at,
        'https://github.com/' || int_serving_sweeps.repository || '/blob/main/'
            || int_serving_sweeps.repository_path as source_url,
        int_serving_sweeps.hardware_source_url,
        int_serving_sweeps.fetch_id
    from int_serving_sweeps
    where int_serving_sweeps.accelerator_id is not null
        and int_serving_sweeps.gpu_count > 0
        and int_serving_sweeps.output_tokens_per_second_per_gpu > 0
        and int_serving_sweeps.tokens_per_second_per_user > 0

),

points as (

    select
        all_points.*,
        case
            when least(all_points.accelerators_per_node, 8) <= 1 then 1
            when least(all_points.accelerators_per_node, 8) <= 2 then 2
            when least(all_points.accelerators_per_node, 8) <= 4 then 4
            else 8
        end as gpus_per_instance
    from (
        select * from mlperf_points
        union all
        select * from sweep_points
    ) as all_points

),

bases as (

    select * from price_bases_by_size

),

priced as (

    select
        points.*,
        bases.price_basis,
        bases.basis_kind,
        bases.provider,
        bases.price_per_gpu_hour,
        bases.observed_at as price_observed_at
    from points
    left join bases
        on bases.accelerator_id = points.accelerator_id
        and (bases.min_gpus_per_instance is null
            or bases.min_gpus_per_instance <= points.gpus_per_instance)
    qualify row_number() over (
        partition by points.curve_id, points.point, bases.price_basis
        order by bases.min_gpus_per_instance desc nulls last
    ) = 1

),

final as (

    select
        ---------- the point
        priced.curve_id,
        priced.measured_by,
        priced.model,
        priced.accelerator_id,
        priced.accelerator_count,
        priced.point,
        priced.concurrency,
        priced.software,
        priced.comparable,
        priced.tokens_per_second_per_user,
        priced.interactivity_basis,
        priced.tokens_per_second_per_gpu,
        not exists (
            select 1 from points as better
            where better.curve_id = priced.curve_id
                and better.tokens_per_second_per_user >= priced.tokens_per_second_per_user
                and better.tokens_per_second_per_gpu >= priced.tokens_per_second_per_gpu
                and (better.tokens_per_second_per_user > priced.tokens_per_second_per_user
                    or better.tokens_per_second_per_gpu > priced.tokens_per_second_per_gpu)
        ) as on_frontier,
        priced.observed_at,
        priced.source_url,
        priced.hardware_source_url,
        priced.fetch_id,

        ---------- the price
        priced.gpus_per_instance,
        priced.price_basis,
        priced.basis_kind,
        priced.provider,
        priced.price_per_gpu_hour,
        priced.price_observed_at,
        priced.price_per_gpu_hour / (priced.tokens_per_second_per_gpu * 3600) * 1e6
            as usd_per_million_output_tokens,

        ---------- tokens per query, and every token processed priced alike
        priced.input_tokens_per_query,
        priced.output_tokens_per_query,
        priced.token_counts_basis,
        usd_per_million_tokens(priced.price_per_gpu_hour,
            priced.tokens_per_second_per_gpu
            * (priced.input_tokens_per_query + priced.output_tokens_per_query)
            / nullif(priced.output_tokens_per_query, 0)
        ) as usd_per_million_input_and_output_tokens

    from priced

)

select * from final
