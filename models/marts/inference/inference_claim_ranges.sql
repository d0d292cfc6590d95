-- one row per claim x accelerator family x benchmark: the realistic range of measured inference
-- throughput and cost behind a vendor claim. The claims are those of inference_claims (rows of
-- catalog/inference_scenarios.csv with a claim) plus the seed's question "fact check NVIDIA's
-- claims of 35x cheaper inference ... for a 70B MoE model" (scenario_id
-- 'seed-moe-35x-vs-hopper', ../shared/seeds/000_5f15fa4470155bf9.txt), which sets Blackwell and
-- Blackwell Ultra against Hopper on every MoE benchmark. The families are accelerators.family of
-- the claim's platform and baseline; the benchmarks are the claim's own benchmark and, when it
-- is a mixture of experts (inference_benchmarks: params_total > params_active), every other MoE
-- benchmark (mixtral-8x7b, gpt-oss-120b, deepseek-r1; an absolute claim, "N USD per million
-- tokens", is read on its own benchmark only). A family with no measured result on a benchmark
-- keeps its row with n_results 0 and null figures, and says so in note.
--
-- The ranges are min / median / max (the median of an even count is the mean of the two middle
-- values) over the comparable measured results of inference_measured (closed division, available
-- hardware, valid run) of the family's accelerators on the benchmark, every round, submitter,
-- software stack and scenario (Offline, Server, Interactive) counted: tokens per second per GPU
-- over the results, each counted once (the same run filed under two accuracy targets once); USD
-- per million output tokens over the results x their observed price bases (price_bases
-- basis_kind 'observed': on_demand_min, on_demand_median, spot_min, community_min,
-- reserved_1y_min, reserved_3y_min, each at the system's instance size as inference_measured
-- prices it; never estimated, owned or analyst rates).
--
-- The ratios compare like with like: every pair of a platform-family result and a
-- baseline-family result on the same benchmark and scenario (throughput), and priced at the
-- same observed price basis (cost). cost_ratio = baseline USD per million / platform USD per
-- million (how many times cheaper the platform is); its min / median / max run over all such
-- pairs. A pair of different scenarios (Offline against Server) or different price bases (spot
-- against on-demand) is not formed: that would compare a latency limit or a pricing model, not
-- the hardware. claim_to_measured_max says how far the claim sits above the most favourable
-- measured pair.
--
-- columns:
--   scenario_id: the claim's id: inference_claims.scenario_id (catalog/inference_scenarios.csv),
--     or 'seed-moe-35x-vs-hopper' for the seed's 35x question
--   question: the question the claim row answers
--   claim_kind: cost_per_token (N x lower USD per million tokens), throughput_per_gpu (N x more
--     tokens per second per GPU) or usd_per_million_tokens (N USD per million tokens)
--   claimed_ratio [ratio]: the claimed N of a ratio claim; null for an absolute claim
--   claimed_usd_per_million_output_tokens [USD per million tokens]: an absolute claim's N; null
--     for a ratio claim
--   claim_source_url: where the claim is made
--   accelerator_id: the accelerator the claim names for the platform (the seed question names
--     none: null)
--   baseline_accelerator_id: the accelerator the claim names for the baseline; null for an
--     absolute claim and the seed question
--   family_role: 'platform' (the family the claim is about) or 'baseline' (the family it is
--     compared with)
--   family: the accelerator family of this row (accelerators.family: Blackwell, Blackwell
--     Ultra, Hopper, ...)
--   baseline_family: on a platform row, the claim's baseline family its ratios are taken
--     against; null on a baseline row and for an absolute claim
--   benchmark: the MLPerf Inference benchmark (inference_measured.benchmark)
--   benchmark_match: 'claim' (the benchmark the claim names) or 'moe' (another
--     mixture-of-experts benchmark: a model like the claim's)
--   n_results [results]: comparable measured results of the family on the benchmark (all
--     scenarios); 0 when it was never measured
--   accelerator_ids: the family's accelerators measured, comma-separated
--   scenarios: the scenarios measured, comma-separated (Offline, Server, Interactive)
--   rounds: the MLPerf rounds measured, comma-separated
--   tokens_per_second_per_gpu_min [tokens/s per GPU]: the lowest measured generated tokens per
--     second per accelerator (inference_measured.tokens_per_second_per_accelerator)
--   tokens_per_second_per_gpu_median [tokens/s per GPU]: the median over the results
--   tokens_per_second_per_gpu_max [tokens/s per GPU]: the highest
--   n_priced [results x bases]: measured results x observed price bases with a cost
--   price_bases: the observed price bases behind the costs, comma-separated
--   usd_per_million_output_tokens_min [USD per million tokens]: the lowest measured cost of a
--     million generated tokens (inference_measured.usd_per_million_output_tokens) over the
--     results x observed price bases
--   usd_per_million_output_tokens_median [USD per million tokens]: the median over them
--   usd_per_million_output_tokens_max [USD per million tokens]: the highest
--   n_throughput_pairs [pairs]: on a platform row, the pairs of a platform-family and a
--     baseline-family result of the same benchmark and scenario
--   tokens_per_second_ratio_min [ratio]: over those pairs, the lowest platform / baseline
--     tokens per second per GPU
--   tokens_per_second_ratio_median [ratio]: the median of those ratios
--   tokens_per_second_ratio_max [ratio]: the highest
--   n_cost_pairs [pairs]: on a platform row, the pairs of a platform-family and a
--     baseline-family result of the same benchmark and scenario priced at the same observed
--     price basis
--   cost_ratio_min [ratio]: over those pairs, the lowest baseline USD per million output tokens /
--     platform USD per million (how many times cheaper the platform is; below 1: dearer)
--   cost_ratio_median [ratio]: the median of those ratios
--   cost_ratio_max [ratio]: the highest: the most favourable like-for-like case for the platform
--   claim_to_measured_max [ratio]: on a platform row, how many times the claim exceeds the most
--     favourable measurement: claimed_ratio / cost_ratio_max (cost claim), claimed_ratio /
--     tokens_per_second_ratio_max (throughput claim), usd_per_million_output_tokens_min /
--     claimed_usd_per_million_output_tokens (absolute claim); > 1: the claim is above the
--     measured range; null when nothing was measured to compare
--   claim_position: on a platform row, where the claim sits in the measured range: 'above' (more
--     favourable to the platform than any measured pair or cost), 'within', 'below', or
--     'unmeasured'; null on a baseline row
--   note: what is missing on the row (no result, no observed price, no pair), else empty

with

claimed as (

    select distinct
        claim_rows.scenario_id,
        claim_rows.question,
        claim_rows.claim_kind,
        claim_rows.claimed_ratio,
        claim_rows.claimed_usd_per_million_output_tokens,
        claim_rows.claim_source_url
    from inference_claims as claim_rows

),

scenario_rows as (

    select * from stg_curated__inference_scenarios

),

alias_rows as (

    select * from accelerator_aliases

),

accelerator_rows as (

    select * from accelerators

),

moe_benchmarks as (

    select benchmark_rows.benchmark
    from inference_benchmarks as benchmark_rows
    where benchmark_rows.params_total > benchmark_rows.params_active

),

-- each catalogued claim with its accelerators and their families
claim_list as (

    select
        claimed.*,
        scenario_rows.benchmark as claim_benchmark,
        platform_alias.accelerator_id,
        baseline_alias.accelerator_id as baseline_accelerator_id,
        platform_acc.family as platform_family,
        baseline_acc.family as baseline_family
    from claimed
    inner join scenario_rows
        on scenario_rows.scenario_id = claimed.scenario_id
    left join alias_rows as platform_alias
        on platform_alias.alias_key = scenario_rows.accelerator_key
    left join alias_rows as baseline_alias
        on baseline_alias.alias_key = scenario_rows.baseline_accelerator_key
    left join accelerator_rows as platform_acc
        on platform_acc.accelerator_id = platform_alias.accelerator_id
    left join accelerator_rows as baseline_acc
        on baseline_acc.accelerator_id = baseline_alias.accelerator_id

),

-- the seed's question: NVIDIA's "35x cheaper" (GB300 NVL72 against Hopper, seed 001) for a
-- 70B MoE model, on both Blackwell generations
seed_claims as (

    select
        'seed-moe-35x-vs-hopper' as scenario_id,
        'Fact check NVIDIA''s claims of 35x cheaper inference: realistic ranges of tokens per '
        || 'second and cost per 1M tokens for a 70B MoE model (Blackwell and Blackwell Ultra '
        || 'against Hopper on the MoE benchmarks)' as question,
        'cost_per_token' as claim_kind,
        35.0::double as claimed_ratio,
        null::double as claimed_usd_per_million_output_tokens,
        '../shared/seeds/000_5f15fa4470155bf9.txt' as claim_source_url,
        null::varchar as claim_benchmark,
        null::varchar as accelerator_id,
        null::varchar as baseline_accelerator_id,
        platform_family,
        'Hopper' as baseline_family
    from (values ('Blackwell'), ('Blackwell Ultra')) as seed_families(platform_family)

),

all_claims as (

    select * from claim_list
    union all by name
    select * from seed_claims

),

-- the benchmarks each claim is read on: its own, and every MoE benchmark when it is one of them
-- (the seed question: every MoE benchmark)
claim_benchmarks as (

    select
        all_claims.scenario_id,
        all_claims.platform_family,
        all_claims.claim_benchmark as benchmark
    from all_claims
    where all_claims.claim_benchmark is not null

    union

    select
        all_claims.scenario_id,
        all_claims.platform_family,
        moe_benchmarks.benchmark
    from all_claims
    cross join moe_benchmarks
    -- an absolute claim (USD per million tokens) is read on its own benchmark only: a cost per
    -- token depends on the model's output length and size
    where all_claims.claim_kind <> 'usd_per_million_tokens'
        and (all_claims.claim_benchmark is null
            or all_claims.claim_benchmark in (
                select moe_list.benchmark from moe_benchmarks as moe_list))

),

-- one row per claim x family x benchmark: the platform family, and the baseline family
claim_families as (

    select
        all_claims.*,
        'platform' as family_role,
        all_claims.platform_family as family,
        claim_benchmarks.benchmark,
        case when claim_benchmarks.benchmark = all_claims.claim_benchmark
            then 'claim' else 'moe' end as benchmark_match
    from all_claims
    inner join claim_benchmarks
        on claim_benchmarks.scenario_id = all_claims.scenario_id
        and claim_benchmarks.platform_family is not distinct from all_claims.platform_family
    where all_claims.platform_family is not null

    union all by name

    select distinct
        all_claims.* exclude (platform_family),
        null as platform_family,
        'baseline' as family_role,
        all_claims.baseline_family as family,
        claim_benchmarks.benchmark,
        case when claim_benchmarks.benchmark = all_claims.claim_benchmark
            then 'claim' else 'moe' end as benchmark_match
    from all_claims
    inner join claim_benchmarks
        on claim_benchmarks.scenario_id = all_claims.scenario_id
        and claim_benchmarks.platform_family is not distinct from all_claims.platform_family
    where all_claims.baseline_family is not null

),

measured_rows as (

    select
        measured.*,
        accelerator_rows.family
    from inference_measured as measured
    inner join accelerator_rows
        on accelerator_rows.accelerator_id = measured.accelerator_id
    where measured.comparable

),

-- each comparable result once (a run filed under two accuracy targets counts once)
result_rows as (

    select distinct
        measured_rows.benchmark,
        measured_rows.scenario,
        measured_rows.round,
        measured_rows.submitter,
        measured_rows.system,
        measured_rows.accelerator_id,
        measured_rows.family,
        measured_rows.tokens_per_second_per_accelerator
    from measured_rows

),

-- each comparable result x observed price basis with a cost, once
priced_rows as (

    select distinct
        measured_rows.benchmark,
        measured_rows.scenario,
        measured_rows.round,
        measured_rows.submitter,
        measured_rows.system,
        measured_rows.accelerator_id,
        measured_rows.family,
        measured_rows.tokens_per_second_per_accelerator,
        measured_rows.price_basis,
        measured_rows.price_per_gpu_hour,
        measured_rows.usd_per_million_output_tokens
    from measured_rows
    where measured_rows.basis_kind = 'observed'
        and measured_rows.display_rank = 0  -- the default observed bases (basis_rank 1)
        and measured_rows.usd_per_million_output_tokens is not null

),

throughput_ranges as (

    select
        result_rows.benchmark,
        result_rows.family,
        count(*) as n_results,
        string_agg(distinct result_rows.accelerator_id, ', ' order by result_rows.accelerator_id)
            as accelerator_ids,
        string_agg(distinct result_rows.scenario, ', ' order by result_rows.scenario)
            as scenarios,
        string_agg(distinct result_rows.round, ', ' order by result_rows.round) as rounds,
        min(result_rows.tokens_per_second_per_accelerator) as tokens_per_second_per_gpu_min,
        median(result_rows.tokens_per_second_per_accelerator)
            as tokens_per_second_per_gpu_median,
        max(result_rows.tokens_per_second_per_accelerator) as tokens_per_second_per_gpu_max
    from result_rows
    group by result_rows.benchmark, result_rows.family

),

cost_ranges as (

    select
        priced_rows.benchmark,
        priced_rows.family,
        count(*) as n_priced,
        string_agg(distinct priced_rows.price_basis, ', ' order by priced_rows.price_basis)
            as price_bases,
        min(priced_rows.usd_per_million_output_tokens) as usd_per_million_output_tokens_min,
        median(priced_rows.usd_per_million_output_tokens)
            as usd_per_million_output_tokens_median,
        max(priced_rows.usd_per_million_output_tokens) as usd_per_million_output_tokens_max
    from priced_rows
    group by priced_rows.benchmark, priced_rows.family

),

-- like-for-like pairs of families: same benchmark and scenario (throughput) ...
throughput_pair_ranges as (

    select
        platform.benchmark,
        platform.family,
        baseline.family as baseline_family,
        count(*) as n_throughput_pairs,
        min(platform.tokens_per_second_per_accelerator
            / baseline.tokens_per_second_per_accelerator) as tokens_per_second_ratio_min,
        median(platform.tokens_per_second_per_accelerator
            / baseline.tokens_per_second_per_accelerator) as tokens_per_second_ratio_median,
        max(platform.tokens_per_second_per_accelerator
            / baseline.tokens_per_second_per_accelerator) as tokens_per_second_ratio_max
    from result_rows as platform
    inner join result_rows as baseline
        on baseline.benchmark = platform.benchmark
        and baseline.scenario = platform.scenario
        and baseline.family <> platform.family
    group by platform.benchmark, platform.family, baseline.family

),

-- ... and, for cost, the same observed price basis
cost_pair_ranges as (

    select
        platform.benchmark,
        platform.family,
        baseline.family as baseline_family,
        count(*) as n_cost_pairs,
        min(baseline.usd_per_million_output_tokens / platform.usd_per_million_output_tokens)
            as cost_ratio_min,
        median(baseline.usd_per_million_output_tokens / platform.usd_per_million_output_tokens)
            as cost_ratio_median,
        max(baseline.usd_per_million_output_tokens / platform.usd_per_million_output_tokens)
            as cost_ratio_max
    from priced_rows as platform
    inner join priced_rows as baseline
        on baseline.benchmark = platform.benchmark
        and baseline.scenario = platform.scenario
        and baseline.price_basis = platform.price_basis
        and baseline.family <> platform.family
    group by platform.benchmark, platform.family, baseline.family

),

joined as (

    select
        claim_families.scenario_id,
        claim_families.question,
        claim_families.claim_kind,
        claim_families.claimed_ratio,
        claim_families.claimed_usd_per_million_output_tokens,
        claim_families.claim_source_url,
        claim_families.accelerator_id,
        claim_families.baseline_accelerator_id,
        claim_families.family_role,
        claim_families.family,
        case when claim_families.family_role = 'platform'
            then claim_families.baseline_family end as baseline_family,
        claim_families.benchmark,
        claim_families.benchmark_match,
        coalesce(throughput_ranges.n_results, 0) as n_results,
        throughput_ranges.accelerator_ids,
        throughput_ranges.scenarios,
        throughput_ranges.rounds,
        throughput_ranges.tokens_per_second_per_gpu_min,
        throughput_ranges.tokens_per_second_per_gpu_median,
        throughput_ranges.tokens_per_second_per_gpu_max,
        coalesce(cost_ranges.n_priced, 0) as n_priced,
        cost_ranges.price_bases,
        cost_ranges.usd_per_million_output_tokens_min,
        cost_ranges.usd_per_million_output_tokens_median,
        cost_ranges.usd_per_million_output_tokens_max,
        case when claim_families.family_role = 'platform'
                and claim_families.baseline_family is not null
            then coalesce(throughput_pair_ranges.n_throughput_pairs, 0)
        end as n_throughput_pairs,
        throughput_pair_ranges.tokens_per_second_ratio_min,
        throughput_pair_ranges.tokens_per_second_ratio_median,
        throughput_pair_ranges.tokens_per_second_ratio_max,
        case when claim_families.family_role = 'platform'
                and claim_families.baseline_family is not null
            then coalesce(cost_pair_ranges.n_cost_pairs, 0)
        end as n_cost_pairs,
        cost_pair_ranges.cost_ratio_min,
        cost_pair_ranges.cost_ratio_median,
        cost_pair_ranges.cost_ratio_max
    from claim_families
    left join throughput_ranges
        on throughput_ranges.benchmark = claim_families.benchmark
        and throughput_ranges.family = claim_families.family
    left join cost_ranges
        on cost_ranges.benchmark = claim_families.benchmark
        and cost_ranges.family = claim_families.family
    left join throughput_pair_ranges
        on claim_families.family_role = 'platform'
        and throughput_pair_ranges.benchmark = claim_families.benchmark
        and throughput_pair_ranges.family = claim_families.family
        and throughput_pair_ranges.baseline_family = claim_families.baseline_family
    left join cost_pair_ranges
        on claim_families.family_role = 'platform'
        and cost_pair_ranges.benchmark = claim_families.benchmark
        and cost_pair_ranges.family = claim_families.family
        and cost_pair_ranges.baseline_family = claim_families.baseline_family

),

-- the claim against the range: the measured figure the claim is read against, its low and high
positioned as (

    select
        joined.*,
        case joined.claim_kind
            when 'cost_per_token' then joined.claimed_ratio / joined.cost_ratio_max
            when 'throughput_per_gpu' then joined.claimed_ratio / joined.tokens_per_second_ratio_max
            when 'usd_per_million_tokens' then joined.usd_per_million_output_tokens_min
                / joined.claimed_usd_per_million_output_tokens
        end as claim_to_measured_max,
        -- the claim's figure and the measured range, oriented so that larger favours the platform
        case joined.claim_kind
            when 'cost_per_token' then joined.claimed_ratio
            when 'throughput_per_gpu' then joined.claimed_ratio
            when 'usd_per_million_tokens' then 1 / joined.claimed_usd_per_million_output_tokens
        end as claim_favour,
        case joined.claim_kind
            when 'cost_per_token' then joined.cost_ratio_min
            when 'throughput_per_gpu' then joined.tokens_per_second_ratio_min
            when 'usd_per_million_tokens' then 1 / joined.usd_per_million_output_tokens_max
        end as range_low,
        case joined.claim_kind
            when 'cost_per_token' then joined.cost_ratio_max
            when 'throughput_per_gpu' then joined.tokens_per_second_ratio_max
            when 'usd_per_million_tokens' then 1 / joined.usd_per_million_output_tokens_min
        end as range_high
    from joined

),

final as (

    select
        positioned.* exclude (claim_to_measured_max, claim_favour, range_low, range_high),
        case when positioned.family_role = 'platform'
            then positioned.claim_to_measured_max end as claim_to_measured_max,
        case
            when positioned.family_role <> 'platform' then null
            when positioned.range_high is null then 'unmeasured'
            when positioned.claim_favour > positioned.range_high then 'above'
            when positioned.claim_favour < positioned.range_low then 'below'
            else 'within'
        end as claim_position,
        concat_ws('; ',
            case when positioned.n_results = 0
                then 'no comparable measured result of ' || positioned.family || ' on '
                    || positioned.benchmark end,
            case when positioned.n_results > 0 and positioned.n_priced = 0
                then 'no observed price for the measured ' || positioned.family
                    || ' accelerators' end,
            case when positioned.n_throughput_pairs = 0
                then 'no ratio: ' || positioned.baseline_family || ' and ' || positioned.family
                    || ' were not measured in one scenario of ' || positioned.benchmark
                when positioned.n_cost_pairs = 0
                then 'no cost ratio: no observed price basis prices both families' end
        ) as note
    from positioned

)

select * from final
order by final.scenario_id, final.benchmark_match, final.benchmark,
    final.family_role desc, final.family
