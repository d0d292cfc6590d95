-- one row per inference scenario with a claim x price basis (both platforms' for a ratio; a
-- claim with no priced pair keeps one row with null figures): the vendor's claimed "N x
-- lower cost per million tokens" beside the ratio the roofline (specs) and live prices
-- support, and beside what measurements show (MLPerf Inference, inference_throughput). An
-- absolute claim ("N USD per million tokens" on one platform, claim_kind
-- usd_per_million_tokens) is set beside the platform's cheapest measured cost on the claim's
-- benchmark at each price basis, and the price per GPU-hour it would need. It pairs
-- the scenario's rows of inference_cost for the platform and the baseline,
-- exactly as the macro inference_cost_ratio (used by `gpucost estimate --compare`) pairs two
-- inference_cost_estimate calls: supported_ratio = baseline USD per million output tokens /
-- platform USD per million. claim_to_supported > 1: the claim exceeds what specs and prices
-- support. A ratio claim is checked by the macro claim_check (measured_cost_ratio,
-- claim_to_supported, claim_to_measured, price_ratio_needed), the one `gpucost estimate
-- inference --compare --claim` prints.
--
-- columns:
--   scenario_id: the scenario's id in catalog/inference_scenarios.csv
--   question: the question the scenario answers
--   accelerator: the platform the claim is about, as the scenario spells it
--   baseline_accelerator: the baseline the claim compares with, as the scenario spells it
--   claim_kind: cost_per_token (the claim: N x lower USD per million tokens), throughput_per_gpu
--     (N x more tokens per second per GPU) or usd_per_million_tokens (N USD per million tokens)
--   claimed_ratio [ratio]: the claimed N: "N x lower cost per million tokens" or "N x higher
--     per-GPU throughput" of the platform against the baseline
--   claimed_usd_per_million_output_tokens [USD per million tokens]: an absolute claim's N; null
--     for a ratio claim
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
--     throughput_ratio_per_gpu for a throughput claim, usd_per_million_output_tokens /
--     claimed_usd_per_million_output_tokens for an absolute claim (> 1: the claim exceeds what
--     specs and prices support)
--   measured_benchmark: the benchmark of the measured pair (inference_throughput.benchmark); null
--     when the two accelerators were never measured on one benchmark and scenario
--   measured_scenario: its scenario (Offline, Server, Interactive)
--   measured_round: the platform's round
--   measured_baseline_round: the baseline's round
--   measured_software: the platform's software family
--   measured_baseline_software: the baseline's software family
--   measured_match: how close the pair is to the claim: 1 claim's benchmark, same round and
--     software family; 2 same round; 3 different rounds; 4, 5, 6 the same on another benchmark;
--     null for an absolute claim
--   measured_tokens_per_second_per_gpu [tokens/s per GPU]: the platform's measured per-GPU
--     throughput
--   measured_baseline_tokens_per_second_per_gpu [tokens/s per GPU]: the baseline's
--   measured_ratio [ratio]: measured_tokens_per_second_per_gpu /
--     measured_baseline_tokens_per_second_per_gpu
--   measured_cost_ratio [ratio]: measured_ratio / price_ratio: how many times cheaper per million
--     tokens the measurements make the platform at this price basis
--   measured_usd_per_million_output_tokens [USD per million tokens]: for an absolute claim, the
--     platform's cheapest measured cost on the claim's benchmark at this price basis
--     (inference_measured, comparable results, any scenario); null for a ratio claim
--   measured_submitter: for an absolute claim, the submitter of that measured result
--   claim_to_measured [ratio]: claimed_ratio / measured_cost_ratio (cost claim), claimed_ratio /
--     measured_ratio (throughput claim) or measured_usd_per_million_output_tokens /
--     claimed_usd_per_million_output_tokens (absolute claim): > 1, the claim exceeds what was
--     measured
--   price_ratio_needed [ratio]: for a cost claim, measured_ratio / claimed_ratio: the platform /
--     baseline price ratio at which the measured throughput would give the claimed cost ratio
--   price_per_gpu_hour_needed [USD per GPU-hour]: for an absolute claim, the price of one
--     GPU-hour at which the measured throughput gives the claimed cost:
--     claimed_usd_per_million_output_tokens x measured_tokens_per_second_per_gpu x 3600 / 10^6
--   note: the scenario's note (model shape, caveats)

with

scenarios as (

    select * from stg_curated__inference_scenarios

),

claims as (

    select * from scenarios
    where claimed_ratio is not null

),

absolute_claims as (

    select * from scenarios
    where claimed_ratio is null
        and claimed_usd_per_million_output_tokens is not null

),

measured as (

    select * from inference_measured

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

-- an absolute claim: the platform's roofline cost (inference_cost) at each price basis beside
-- its cheapest measured cost on the claim's benchmark at the same basis
absolute_rows as (

    select
        claims.scenario_id,
        costs.price_basis,
        costs.accelerator_id,
        costs.provider,
        costs.price_per_gpu_hour,
        costs.usd_per_million_output_tokens,
        best.benchmark as measured_benchmark,
        best.scenario as measured_scenario,
        best.round as measured_round,
        best.software_family as measured_software,
        best.submitter as measured_submitter,
        best.tokens_per_second_per_accelerator as measured_tokens_per_second_per_gpu,
        best.usd_per_million_output_tokens as measured_usd_per_million_output_tokens
    from absolute_claims as claims
    inner join aliases as platform_alias
        on platform_alias.alias_key = claims.accelerator_key
    inner join costs
        on costs.scenario_id = claims.scenario_id
        and costs.accelerator_id = platform_alias.accelerator_id
    left join lateral (
        select measured.*
        from measured
        where measured.accelerator_id = costs.accelerator_id
            and measured.price_basis = costs.price_basis
            and measured.benchmark = claims.benchmark
            and measured.comparable
            and measured.usd_per_million_output_tokens is not null
        order by measured.usd_per_million_output_tokens, measured.round desc,
            measured.submitter, measured.system
        limit 1
    ) as best on true

),

absolute_final as (

    select
        claims.scenario_id,
        rows.price_basis,
        rows.accelerator_id,
        rows.provider,
        rows.price_per_gpu_hour,
        rows.usd_per_million_output_tokens,
        rows.usd_per_million_output_tokens / claims.claimed_usd_per_million_output_tokens
            as claim_to_supported,
        rows.measured_benchmark,
        rows.measured_scenario,
        rows.measured_round,
        rows.measured_software,
        rows.measured_submitter,
        rows.measured_tokens_per_second_per_gpu,
        rows.measured_usd_per_million_output_tokens,
        rows.measured_usd_per_million_output_tokens
            / claims.claimed_usd_per_million_output_tokens as claim_to_measured,
        claims.claimed_usd_per_million_output_tokens * rows.measured_tokens_per_second_per_gpu
            * 3600 / 1e6 as price_per_gpu_hour_needed
    from absolute_claims as claims
    left join absolute_rows as rows
        on rows.scenario_id = claims.scenario_id

),

-- the ratio claims beside the roofline and the measured pair, checked by claim_check
checked as (

    select
        claims.scenario_id,
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
        claim_check(
            claims.claimed_ratio, claims.claim_kind, pairs.price_ratio,
            measured_pairs.measured_ratio,
            supported_ratio := pairs.supported_ratio,
            throughput_ratio := pairs.throughput_ratio_per_gpu
        ) as verdict
    from claims
    left join pairs
        on pairs.scenario_id = claims.scenario_id
    left join measured_pairs
        on measured_pairs.scenario_id = claims.scenario_id

),

final as (

    select
        checked.* exclude (verdict),
        checked.verdict.claim_to_supported,
        checked.verdict.measured_cost_ratio,
        checked.verdict.claim_to_measured,
        checked.verdict.price_ratio_needed
    from checked

),

-- the claim's own words once, beside the ratio rows and the absolute rows
all_claims as (

    select
        scenarios.question,
        scenarios.accelerator,
        scenarios.baseline_accelerator,
        scenarios.claim_kind,
        scenarios.claimed_ratio,
        scenarios.claimed_usd_per_million_output_tokens,
        scenarios.claim_source_url,
        scenarios.note,
        claim_rows.*
    from (
        select * from final
        union all by name
        select * from absolute_final
    ) as claim_rows
    inner join scenarios
        on scenarios.scenario_id = claim_rows.scenario_id

)

select
    scenario_id, question, accelerator, baseline_accelerator, claim_kind, claimed_ratio,
    claimed_usd_per_million_output_tokens, claim_source_url, price_basis, accelerator_id,
    baseline_accelerator_id, provider, baseline_provider, price_per_gpu_hour,
    baseline_price_per_gpu_hour, throughput_ratio_per_gpu, price_ratio,
    usd_per_million_output_tokens, baseline_usd_per_million_output_tokens, supported_ratio,
    claim_to_supported, measured_benchmark, measured_scenario, measured_round,
    measured_baseline_round, measured_software, measured_baseline_software, measured_submitter,
    measured_match, measured_tokens_per_second_per_gpu,
    measured_baseline_tokens_per_second_per_gpu, measured_ratio, measured_cost_ratio,
    measured_usd_per_million_output_tokens, claim_to_measured, price_ratio_needed,
    price_per_gpu_hour_needed, note
from all_claims
order by all_claims.scenario_id, all_claims.price_basis
