-- returns the length in months of the commitment a pricing model sells (catalog/records.py
-- PRICING_MODELS): reserved_1m 1, reserved_6m 6, reserved_1y and savings_plan_1y 12,
-- reserved_3y and savings_plan_3y 36; null for a price with no commitment (on_demand, spot,
-- community, interruptible_bid, queued, capacity_block).

create or replace macro term_months(pricing_model) as
    case pricing_model
        when 'reserved_1m' then 1
        when 'reserved_6m' then 6
        when 'reserved_1y' then 12
        when 'savings_plan_1y' then 12
        when 'reserved_3y' then 36
        when 'savings_plan_3y' then 36
    end
