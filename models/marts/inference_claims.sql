-- one row per inference scenario with a claimed cost ratio x price basis both platforms have
-- (a claim with no priced pair keeps one row with null figures): the vendor's claimed "N x
-- lower cost per million tokens" beside the ratio the roofline (specs) and live prices
-- support, and beside what measurements show (MLPerf Inference, inference_throughput). It pairs
-- the scenario's rows of inference_cost for the platform and the baseline,
-- exactly as the macro inference_cost_ratio (used by `gpucost estimate --compare`) pairs two
-- inference_cost_estimate calls: supported_ratio = baseline USD per million output tokens /
-- platform USD per million. claim_to_supported > 1: the claim exceeds what specs and prices
-- support.
--
-- columns:
--   scenario_id: the scenario's id in catalog/inference_scenarios.csv
--   question: the question the scenario answers
--   accelerator: the platform the claim is about, as the scenario spells it
--   baseline_accelerator: the baseline the claim compares with, as the scenario spells it
--   claim_kind: cost_per_token (the claim: N x lower USD per million tokens) or throughput_per_gpu
--     (N x more tokens per second per GPU)
--   claimed_ratio [ratio]: the claimed N: "N x lower cost per million tokens" or "N x higher
--     per-GPU throughput" of the platform against the baseline
--   claim_source_url: where the claim is made
--   price_basis: the price basis both platforms are priced at (a basis of price_bases); null when
--     no basis prices both
--   accelerator_id: the platform's canonical accelerator id
--   baseline_accelerator_id: the baseline's canonical accelerator id
--   provider: the provider behind the platform's price basis; null for on_demand_median and owned
--   baseline_provider: the provider behind the baseline's price basis
--   price_per_gpu_hour [USD per GPU-hour]: the platform's price of one GPU-hour
--   baseline_price_per_gpu_hour [USD per GPU-hour]: the baseline's price of one GPU-hour
--   throughput_ratio_per_gpu [ratio]: platform / baseline output tokens per second per GPU
--     (inference_cost.output_tokens_per_second_per_gpu)
--   price_ratio [ratio]: platform / baseline price_per_gpu_hour
--   baseline_usd_per_million_output_tokens [USD per million tokens]: the baseline's
--     usd_per_million_output_tokens
--   supported_ratio [ratio]: baseline_usd_per_million_output_tokens /
--     usd_per_million_output_tokens: how many times cheaper specs and live prices make the platform
--   claim_to_supported [ratio]: claimed_ratio / supported_ratio for a cost claim, claimed_ratio /
--     throughput_ratio_per_gpu for a throughput claim (> 1: the claim exceeds what specs and prices
--     support)
--   measured_benchmark: the benchmark of the measured pair (inference_throughput.benchmark); null
--     when the two accelerators were never measured on one benchmark and scenario
--   measured_scenario: its scenario (Offline, Server, Interactive)
--   measured_round: the platform's round
--   measured_baseline_round: the baseline's round
--   measured_software: the platform's software family
--   measured_baseline_software: the baseline's software family
--   measured_match: how close the pair is to the claim: 1 claim's benchmark, same round and
--     software family; 2 same round; 3 different rounds; 4, 5, 6 the same on another benchmark
--   measured_tokens_per_second_per_gpu [tokens/s per GPU]: the platform's measured per-GPU
--     throughput
--   measured_baseline_tokens_per_second_per_gpu [tokens/s per GPU]: the baseline's
--   measured_ratio [ratio]: measured_tokens_per_second_per_gpu /
--     measured_baseline_tokens_per_second_per_gpu
--   measured_cost_ratio [ratio]: measured_ratio / price_ratio: how many times cheaper per million
--     tokens the measurements make the platform at this price basis
--   claim_to_measured [ratio]: claimed_ratio / measured_cost_ratio (cost claim) or claimed_ratio /
--     measured_ratio (throughput claim): > 1, the claim exceeds what was measured
--   price_ratio_needed [ratio]: for a cost claim, measured_ratio / claimed_ratio: the platform /
--     baseline price ratio at which the measured throughput would give the claimed cost ratio
--   note: the scenario's note (model shape, caveats)

with

claims as (

    select * from stg_curated__inference_scenarios
    where claimed_ratio is not null

),

aliases as (

    select * from accelerator_aliases

),

costs as (

    select * from inference_cost

),

pairs as (

    select
        claims.scenario_id,
        platform.price_basis,
        platform.accelerator_id,
        baseline.accelerator_id as baseline_accelerator_id,
        platform.provider,
        baseline.provider as baseline_provider,
        platform.price_per_gpu_hour,
        baseline.price_per_gpu_hour as baseline_price_per_gpu_hour,
        platform.output_tokens_per_second_per_gpu
            / baseline.output_tokens_per_second_per_gpu as throughput_ratio_per_gpu,
        platform.price_per_gpu_hour / baseline.price_per_gpu_hour as price_ratio,
        platform.usd_per_million_output_tokens,
        baseline.usd_per_million_output_tokens as baseline_usd_per_million_output_tokens,
        baseline.usd_per_million_output_tokens / platform.usd_per_million_output_tokens
            as supported_ratio
    from claims
    inner join aliases as platform_alias
        on platform_alias.alias_key = claims.accelerator_key
    inner join aliases as baseline_alias
        on baseline_alias.alias_key = claims.baseline_accelerator_key
    inner join costs as platform
        on platform.scenario_id = claims.scenario_id
        and platform.accelerator_id = platform_alias.accelerator_id
    inner join costs as baseline
        on baseline.scenario_id = claims.scenario_id
        and baseline.accelerator_id = baseline_alias.accelerator_id
        and baseline.price_basis = platform.price_basis

),

measured_pairs as (

    select
        claims.scenario_id,
        pair.*
    from claims
    inner join aliases as platform_alias
        on platform_alias.alias_key = claims.accelerator_key
    inner join aliases as baseline_alias
        on baseline_alias.alias_key = claims.baseline_accelerator_key,
        lateral measured_throughput_ratio(
            platform_alias.accelerator_id, baseline_alias.accelerator_id,
            benchmark := claims.benchmark
        ) as pair
    where pair.pair_rank = 1

),

final as (

    select
        claims.scenario_id,
        claims.question,
        claims.accelerator,
        claims.baseline_accelerator,
        claims.claim_kind,
        claims.claimed_ratio,
        claims.claim_source_url,
        pairs.price_basis,
        pairs.accelerator_id,
        pairs.baseline_accelerator_id,
        pairs.provider,
        pairs.baseline_provider,
        pairs.price_per_gpu_hour,
        pairs.baseline_price_per_gpu_hour,
        pairs.throughput_ratio_per_gpu,
        pairs.price_ratio,
        pairs.usd_per_million_output_tokens,
        pairs.baseline_usd_per_million_output_tokens,
        pairs.supported_ratio,
        claims.claimed_ratio / case claims.claim_kind
            when 'throughput_per_gpu' then pairs.throughput_ratio_per_gpu
            else pairs.supported_ratio
        end as claim_to_supported,
        measured_pairs.benchmark as measured_benchmark,
        measured_pairs.scenario as measured_scenario,
        measured_pairs.round as measured_round,
        measured_pairs.baseline_round as measured_baseline_round,
        measured_pairs.software_family as measured_software,
        measured_pairs.baseline_software_family as measured_baseline_software,
        measured_pairs.match_tier as measured_match,
        measured_pairs.tokens_per_second_per_gpu as measured_tokens_per_second_per_gpu,
        measured_pairs.baseline_tokens_per_second_per_gpu
            as measured_baseline_tokens_per_second_per_gpu,
        measured_pairs.measured_ratio,
        measured_ratio / pairs.price_ratio as measured_cost_ratio,
        claims.claimed_ratio / case claims.claim_kind
            when 'throughput_per_gpu' then measured_ratio
            else measured_cost_ratio
        end as claim_to_measured,
        case when claims.claim_kind = 'cost_per_token'
            then measured_ratio / claims.claimed_ratio
        end as price_ratio_needed,
        claims.note
    from claims
    left join pairs
        on pairs.scenario_id = claims.scenario_id
    left join measured_pairs
        on measured_pairs.scenario_id = claims.scenario_id

)

select * from final
order by final.scenario_id, final.price_basis
