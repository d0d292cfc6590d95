-- returns the measured pairs of two accelerators, closest like-for-like first (pair_rank 1):
-- each accelerator's best per-GPU throughput (inference_throughput: comparable results only:
-- closed division, available hardware, valid) per benchmark, accuracy target, scenario, round
-- and software family, paired on one benchmark, accuracy target and scenario.
--   match 1: `benchmark` (the claim's model), same round, same software family;
--         2: same round; 3: other rounds; 4-6: the same on another benchmark
--   (with no `benchmark`, every benchmark counts as the claim's: 1-3 only);
--   then Offline before Server before Interactive, the newest rounds, benchmark name.
-- measured_ratio = platform tokens/s per GPU / baseline tokens/s per GPU.

create or replace macro measured_throughput_ratio(
    accelerator, baseline_accelerator, benchmark := null
) as table
with

best as (

    select
        measured.accelerator_id,
        measured.benchmark,
        measured.accuracy_target,
        measured.scenario,
        measured.round,
        measured.software_family,
        max(measured.tokens_per_second_per_accelerator) as tokens_per_second_per_gpu
    from inference_throughput as measured
    where measured.valid
        and measured.division = 'closed'
        and measured.availability = 'available'
        and measured.tokens_per_second_per_accelerator > 0
        and measured.accelerator_id in (accelerator, baseline_accelerator)
    group by all

),

pairs as (

    select
        platform.benchmark,
        platform.accuracy_target,
        platform.scenario,
        platform.round,
        baseline.round as baseline_round,
        platform.software_family,
        baseline.software_family as baseline_software_family,
        case
            when benchmark is null or platform.benchmark = benchmark then 0 else 3
        end + case
            when platform.round = baseline.round
                and platform.software_family is not distinct from baseline.software_family
                then 1
            when platform.round = baseline.round then 2
            else 3
        end as match_tier,
        platform.tokens_per_second_per_gpu,
        baseline.tokens_per_second_per_gpu as baseline_tokens_per_second_per_gpu,
        platform.tokens_per_second_per_gpu / baseline.tokens_per_second_per_gpu
            as measured_ratio
    from best as platform
    inner join best as baseline
        on baseline.benchmark = platform.benchmark
        and baseline.accuracy_target = platform.accuracy_target
        and baseline.scenario = platform.scenario
    where platform.accelerator_id = accelerator
        and baseline.accelerator_id = baseline_accelerator

)

select
    row_number() over (
        order by
            pairs.match_tier,
            case pairs.scenario when 'Offline' then 0 when 'Server' then 1 else 2 end,
            least(pairs.round, pairs.baseline_round) desc,
            greatest(pairs.round, pairs.baseline_round) desc,
            pairs.benchmark,
            pairs.measured_ratio desc
    ) as pair_rank,
    pairs.*
from pairs
order by pair_rank
