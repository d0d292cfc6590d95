-- returns the value of one catalog assumption (mart cost_assumptions) by key, null if absent.

create or replace macro cost_assumption(assumption_name) as (
    select max(cost_assumptions.value)
    from cost_assumptions
    where cost_assumptions.assumption_key = assumption_name
)
