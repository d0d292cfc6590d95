-- one row per GPU offer in force x inference workload (an MLPerf Inference benchmark and
-- scenario measured on the offer's accelerator): what the offer costs per million generated
-- tokens at the measured throughput of the closest comparable result, with the result named.
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
--   usd_per_million_output_tokens [USD per million tokens]: price_per_gpu_hour /
--     (tokens_per_second_per_gpu x 3600) x 10^6; null when not_comparable

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

    select * from candidates
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

        ---------- the answer
        case when closest.match <> 'not_comparable'
            then closest.price_per_gpu_hour / (closest.tokens_per_second_per_gpu * 3600) * 1e6
        end as usd_per_million_output_tokens

    from closest

)

select * from final
