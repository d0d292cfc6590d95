-- returns the measured results of the estimate's model on one accelerator: per benchmark of
-- same_model_benchmarks(active, total) and scenario, the comparable result of inference_measured
-- at the cheapest on-demand price (else the best display_rank: the cheapest observed basis,
-- else owned, else the analyst's 3-year rental survey), with the benchmark's model; Offline
-- first, then Server, then the others, by benchmark.

create or replace macro measured_same_model(accelerator, active, total := null) as table

select
    measured.*,
    bench.model
from inference_measured as measured
inner join same_model_benchmarks(active, total) as bench
    on bench.benchmark = measured.benchmark
where measured.accelerator_id = accelerator
    and measured.comparable
    and measured.usd_per_million_output_tokens is not null
    and measured.display_rank is not null
qualify row_number() over (
    partition by measured.benchmark, measured.scenario
    order by measured.price_basis = 'on_demand_min' desc, measured.display_rank,
        measured.usd_per_million_output_tokens
) = 1
order by
    case measured.scenario when 'Offline' then 0 when 'Server' then 1 else 2 end,
    measured.benchmark
