-- one row per GPU offer in force x inference workload (an MLPerf Inference benchmark and
-- scenario measured on the offer's accelerator): what the offer costs per million input
-- tokens, per million output tokens and per blended million at the measured throughput of the
-- closest comparable result, with the result named.
-- `gpucost offers H100:8 --workload llama2-70b` and `gpucost.offers(..., workload=...)` read
-- it; dashboards too.
--
-- The result for an offer of g GPUs, among valid results of its accelerator on the benchmark
-- and scenario (inference_throughput), closest first: the same GPU count (match 'same_size'),
-- else a smaller system that g GPUs hold a whole number of times (match 'replicas': the offer
-- runs g / n copies of the measured n-GPU system, so its per-GPU throughput carries over); a
-- system larger than the offer, or one it does not divide, is 'not_comparable' (the model
-- may not fit; no cost is given). Then closed division and available hardware first, the
-- newest round, the 99% accuracy target before 99.9%, the highest throughput per GPU.
--
-- Input and output apart (docs/cost-models.md, "Input and output tokens apart"): one query
-- costs the measured GPU time of its output tokens (usd_per_million_output_tokens_all_in x
-- output tokens / 10^6); that cost is split between its input (prefill) and output (decode)
-- tokens in proportion input_tokens_per_query : output_tokens_per_query x
-- output_to_input_cost_ratio, the roofline's decode time per output token over its prefill
-- time per input token (inference_cost_estimate for the benchmark's model on the offer's
-- accelerator at the serving defaults, context = input + half the output); macro
-- token_cost_split.
--
-- columns:
--   accelerator_id: the offer's accelerator
--   provider: who lists the offer (gpu_offers.provider)
--   seller: who runs the machine (gpu_offers.seller)
--   sku: the offer's instance type or listing
--   region: the offer's region
--   pricing_model: on_demand, spot, community, reserved_1y or reserved_3y
--   gpu_count [GPUs]: GPUs in the offer's instance
--   price_per_gpu_hour [USD per GPU-hour]: the offer's price of one GPU-hour
--   price_observed_at [timestamp (UTC)]: when the price was observed; null when undated
--   price_observed_at_known: false for an undated price (a file replayed without a date)
--   source: the source of the price
--   source_kind: first_hand, reference or crosscheck (gpu_offers.source_kind)
--   price_fetch_id: the raw.fetches row of the price
--   workload: benchmark:scenario, as `--workload` takes it (e.g. llama2-70b:server)
--   benchmark: the MLPerf Inference benchmark (inference_throughput.benchmark)
--   scenario: Offline, Server or Interactive
--   accuracy_target: '99', '99.9' or '' of the result used
--   round: the result's MLPerf Inference round
--   submitter: the result's submitter
--   system: the result's system id
--   software_family: the result's serving stack (TensorRT-LLM, vLLM, SGLang, ...)
--   result_accelerator_count [accelerators]: the GPUs the result was measured on
--   match: same_size, replicas or not_comparable (above)
--   match_note: the match in words
--   tokens_per_second_per_gpu [tokens/s per GPU]: the result's generated tokens per second per
--     accelerator
--   tokens_per_second_per_user [tokens/s per user]: the speed one user sees in that result
--     (measured, else the TPOT limit's floor; null for Offline)
--   interactivity_basis: measured or tpot_bound (null for Offline)
--   result_observed_at [timestamp (UTC)]: the result's date (its round's publication)
--   result_fetch_id: the raw.fetches row of the result
--   result_source_url: where the result came from
--   usd_per_million_output_tokens_all_in [USD per million tokens]: price_per_gpu_hour /
--     (tokens_per_second_per_gpu x 3600) x 10^6: the whole GPU-hour charged to the output
--     tokens (input tokens free), the figure this mart gave as usd_per_million_output_tokens
--     before input and output were priced apart; null when not_comparable
--   output_tokens_per_query [tokens]: mean output tokens per query of the result: its tokens/s
--     / samples/s (inference_throughput.output_tokens_per_sample)
--   output_tokens_basis: 'measured' (tokens/s / samples/s of the result)
--   input_tokens_per_query [tokens]: mean input (prompt) tokens per query assumed for the
--     workload: the summaries state none and the datasets' statistics are not catalogued, so
--     assumption inference_default_input_tokens (1,024)
--   input_tokens_basis: 'assumed: inference_default_input_tokens' (where it comes from)
--   input_tokens_source_url: the source the assumption cites
--   context_tokens [tokens]: the context of the roofline the split reads: input_tokens_per_query
--     + half of output_tokens_per_query (the mean context while a query decodes)
--   output_to_input_cost_ratio [ratio]: GPU time of one output token / of one input token: the
--     roofline's prefill_tokens_per_second / output_tokens_per_second (inference_cost_estimate
--     at batch default_inference_serving_batch_size, the serving weight precision,
--     context_tokens, the benchmark's shape from inference_benchmarks); null where the
--     benchmark or the accelerator lacks the figures
--   token_split_method: how the GPU-hour was split, in words
--   blend_input_per_output [ratio]: input tokens per output token of the blended figure
--     (assumption token_blend_input_per_output: 3, Artificial Analysis's 3:1)
--   usd_per_million_input_tokens [USD per million tokens]: the cost of a million input tokens:
--     usd_per_million_output_tokens_all_in x output_tokens_per_query / (input_tokens_per_query
--     + output_tokens_per_query x output_to_input_cost_ratio)
--   usd_per_million_output_tokens [USD per million tokens]: the cost of a million output
--     tokens: usd_per_million_input_tokens x output_to_input_cost_ratio
--   usd_per_million_tokens_blended [USD per million tokens]: (blend_input_per_output x
--     usd_per_million_input_tokens + usd_per_million_output_tokens) / (blend_input_per_output
--     + 1)

with

offers_in_force as (

    select * from gpu_offers
    where gpu_offers.price_per_gpu_hour > 0
        and gpu_offers.currency = 'USD'
        and gpu_offers.gpu_count >= 1
        and not coalesce(gpu_offers.is_fractional_gpu, false)

),

results as (

    select * from inference_throughput
    where inference_throughput.valid
        and inference_throughput.tokens_per_second_per_accelerator > 0
        and inference_throughput.accelerator_count > 0
        and inference_throughput.accelerator_id is not null

),

benchmarks as (

    select * from inference_benchmarks

),

assumed as (

    select
        max(cost_assumptions.value) filter (
            where cost_assumptions.assumption_key = 'inference_default_input_tokens'
        ) as input_tokens_per_query,
        max(cost_assumptions.source_url) filter (
            where cost_assumptions.assumption_key = 'inference_default_input_tokens'
        ) as input_tokens_source_url,
        max(cost_assumptions.value) filter (
            where cost_assumptions.assumption_key = 'token_blend_input_per_output'
        ) as blend_input_per_output
    from cost_assumptions

),

serving as (

    select
        cost_defaults.default_inference_serving_batch_size as batch_size,
        cost_defaults.default_inference_serving_precision as weight_precision
    from cost_defaults

),

-- the roofline of the benchmark's model on the accelerator, once per context: GPU time of one
-- output token against one input token (the same at every price basis)
roofline_inputs as (

    select distinct
        results.accelerator_id,
        results.benchmark,
        round(assumed.input_tokens_per_query + results.output_tokens_per_sample / 2)
            as context_tokens,
        benchmarks.params_active,
        benchmarks.params_total,
        benchmarks.n_layers,
        benchmarks.n_kv_heads,
        benchmarks.head_dim
    from results
    cross join assumed
    inner join benchmarks
        on benchmarks.benchmark = results.benchmark
    where results.output_tokens_per_sample > 0
        and benchmarks.params_active > 0

),

ratios as (

    select
        roofline_inputs.accelerator_id,
        roofline_inputs.benchmark,
        roofline_inputs.context_tokens,
        any_value(serving.batch_size) as batch_size,
        any_value(serving.weight_precision) as weight_precision,
        any_value(estimate.prefill_tokens_per_second / estimate.output_tokens_per_second)
            as output_to_input_cost_ratio
    from roofline_inputs
    cross join serving,
        lateral inference_cost_estimate(
            accelerator := roofline_inputs.accelerator_id,
            params := roofline_inputs.params_active,
            params_total := roofline_inputs.params_total,
            precision := serving.weight_precision,
            n_layers := roofline_inputs.n_layers,
            n_kv_heads := roofline_inputs.n_kv_heads,
            head_dim := roofline_inputs.head_dim,
            context_tokens := roofline_inputs.context_tokens,
            batch_size := serving.batch_size
        ) as estimate
    where estimate.accelerator_id = roofline_inputs.accelerator_id
    group by roofline_inputs.accelerator_id, roofline_inputs.benchmark,
        roofline_inputs.context_tokens

),

candidates as (

    select
        offers_in_force.accelerator_id,
        offers_in_force.provider,
        offers_in_force.seller,
        offers_in_force.sku,
        offers_in_force.region,
        offers_in_force.pricing_model,
        offers_in_force.gpu_count,
        offers_in_force.price_per_gpu_hour,
        offers_in_force.observed_at as price_observed_at,
        offers_in_force.observed_at_known as price_observed_at_known,
        offers_in_force.source,
        offers_in_force.source_kind,
        offers_in_force.fetch_id as price_fetch_id,
        results.benchmark,
        results.scenario,
        results.accuracy_target,
        results.round,
        results.submitter,
        results.system,
        results.software_family,
        results.accelerator_count as result_accelerator_count,
        results.tokens_per_second_per_accelerator as tokens_per_second_per_gpu,
        results.output_tokens_per_sample,
        results.tokens_per_second_per_user,
        results.interactivity_basis,
        results.observed_at as result_observed_at,
        results.fetch_id as result_fetch_id,
        results.source_url as result_source_url,
        results.division = 'closed' and results.availability = 'available' as comparable,
        case
            when results.accelerator_count = offers_in_force.gpu_count then 'same_size'
            when results.accelerator_count < offers_in_force.gpu_count
                and offers_in_force.gpu_count % results.accelerator_count = 0 then 'replicas'
            else 'not_comparable'
        end as match
    from offers_in_force
    inner join results
        on results.accelerator_id = offers_in_force.accelerator_id

),

closest as (

    select candidates.* from candidates
    qualify row_number() over (
        partition by candidates.accelerator_id, candidates.provider, candidates.sku,
            candidates.region, candidates.pricing_model, candidates.source,
            candidates.benchmark, candidates.scenario
        order by
            case candidates.match when 'same_size' then 0 when 'replicas' then 1 else 2 end,
            candidates.comparable desc,
            candidates.round desc,
            candidates.accuracy_target = '99.9',
            candidates.tokens_per_second_per_gpu desc,
            candidates.submitter, candidates.system
    ) = 1

),

split as (

    select
        closest.*,
        assumed.input_tokens_per_query,
        assumed.input_tokens_source_url,
        assumed.blend_input_per_output,
        ratios.context_tokens,
        ratios.batch_size as roofline_batch_size,
        ratios.weight_precision as roofline_weight_precision,
        ratios.output_to_input_cost_ratio,
        case when closest.match <> 'not_comparable'
            then usd_per_million_tokens(closest.price_per_gpu_hour,
                closest.tokens_per_second_per_gpu)
        end as usd_per_million_output_tokens_all_in
    from closest
    cross join assumed
    left join ratios
        on ratios.accelerator_id = closest.accelerator_id
        and ratios.benchmark = closest.benchmark
        and ratios.context_tokens = round(assumed.input_tokens_per_query
            + closest.output_tokens_per_sample / 2)

),

priced as (

    select
        split.*,
        token_cost_split(
            split.usd_per_million_output_tokens_all_in,
            split.input_tokens_per_query,
            split.output_tokens_per_sample,
            split.output_to_input_cost_ratio,
            split.blend_input_per_output
        ) as costs
    from split

),

final as (

    select
        ---------- the offer
        closest.accelerator_id,
        closest.provider,
        closest.seller,
        closest.sku,
        closest.region,
        closest.pricing_model,
        closest.gpu_count,
        closest.price_per_gpu_hour,
        closest.price_observed_at,
        closest.price_observed_at_known,
        closest.source,
        closest.source_kind,
        closest.price_fetch_id,

        ---------- the workload and the result measured for it
        closest.benchmark || ':' || lower(closest.scenario) as workload,
        closest.benchmark,
        closest.scenario,
        closest.accuracy_target,
        closest.round,
        closest.submitter,
        closest.system,
        closest.software_family,
        closest.result_accelerator_count,
        closest.match,
        case closest.match
            when 'same_size' then 'measured on ' || printf('%g', closest.result_accelerator_count)
                || ' GPUs, the offer''s size'
            when 'replicas' then 'measured on ' || printf('%g', closest.result_accelerator_count)
                || ' GPUs; the offer runs ' || printf('%g', closest.gpu_count
                    / closest.result_accelerator_count)
                || ' copies (per-GPU throughput scaled)'
            else 'measured on ' || printf('%g', closest.result_accelerator_count)
                || ' GPUs, more than the offer''s ' || printf('%g', closest.gpu_count)
                || ' (or not a multiple): not comparable'
        end as match_note,
        closest.tokens_per_second_per_gpu,
        closest.tokens_per_second_per_user,
        closest.interactivity_basis,
        closest.result_observed_at,
        closest.result_fetch_id,
        closest.result_source_url,

        ---------- the workload's tokens and how the GPU-hour is split between them
        closest.usd_per_million_output_tokens_all_in,
        closest.output_tokens_per_sample as output_tokens_per_query,
        case when closest.output_tokens_per_sample > 0 then 'measured' end
            as output_tokens_basis,
        closest.input_tokens_per_query,
        'assumed: inference_default_input_tokens' as input_tokens_basis,
        closest.input_tokens_source_url,
        closest.context_tokens,
        closest.output_to_input_cost_ratio,
        case when closest.output_to_input_cost_ratio > 0 then
            'roofline: prefill vs decode time per token (inference_cost_estimate at batch '
            || printf('%g', closest.roofline_batch_size) || ', '
            || closest.roofline_weight_precision || ' weights, '
            || printf('%g', closest.context_tokens) || ' context tokens)'
        end as token_split_method,
        closest.blend_input_per_output,

        ---------- the answer
        closest.costs.usd_per_million_input_tokens,
        closest.costs.usd_per_million_output_tokens,
        closest.costs.usd_per_million_tokens_blended

    from priced as closest

)

select * from final
