-- returns one row per instance size x commitment pricing model of one accelerator
-- (commitment_breakeven; only instances of `gpus_per_instance` GPUs when it is given): the
-- cheapest commitment against the cheapest on-demand offer of the same size and the share of
-- hours at which committing pays (breakeven_utilisation), beside the share of hours at which
-- owning the accelerator pays against that same on-demand offer and against the commitment
-- (breakeven_utilisation macro over rent_vs_buy_estimate's capital + hosting, paid used or
-- not, and its energy per used hour; `years` of useful life as there). `gpucost estimate
-- rent-vs-buy` prints it beside the ownership answer.
--
-- Added columns: owned_usd_per_used_gpu_hour (at `utilisation`, as rent_vs_buy_estimate),
-- owned_breakeven_vs_on_demand and owned_breakeven_vs_commitment [fraction of hours]: owning
-- is cheaper than that rental when busy more than this share of hours (above 1 never; null
-- when the rental price does not cover the energy).

create or replace macro commitment_breakeven_estimate(
    accelerator, utilisation, years := null, gpus_per_instance := null
) as table
with

owned_costs as (

    select
        estimate.tco_capital_usd_per_gpu_hour + estimate.hosting_usd_per_gpu_hour
            as fixed_usd_per_gpu_hour,
        estimate.energy_usd_per_gpu_hour,
        estimate.owned_usd_per_used_gpu_hour
    from rent_vs_buy_estimate(accelerator, utilisation, years := years) as estimate
    limit 1

),

commitments as (

    select * from commitment_breakeven
    where commitment_breakeven.accelerator_id = accelerator
        and (gpus_per_instance is null or commitment_breakeven.gpu_count = gpus_per_instance)

)

select
    commitments.*,
    owned_costs.owned_usd_per_used_gpu_hour,
    breakeven_utilisation(
        owned_costs.fixed_usd_per_gpu_hour,
        owned_costs.energy_usd_per_gpu_hour,
        commitments.on_demand_price_per_gpu_hour
    ) as owned_breakeven_vs_on_demand,
    breakeven_utilisation(
        owned_costs.fixed_usd_per_gpu_hour,
        owned_costs.energy_usd_per_gpu_hour,
        commitments.commitment_price_per_gpu_hour
    ) as owned_breakeven_vs_commitment
from commitments
left join owned_costs on true
order by commitments.gpu_count, commitments.term_months nulls last, commitments.pricing_model
