-- returns an amount of an offer in force in US dollars when int_offers_usd converted it
-- (fx_basis 'observation_day' or 'newest_rate': times `usd_per_unit`, the rate it chose), else
-- the amount as listed (fx_basis 'listed': already USD; 'no_rate': left in its currency, out
-- of every USD figure). 2.52 EUR at 1.113 (observation_day): 2.80476.

create or replace macro usd_if_converted(amount, fx_basis, usd_per_unit) as
    case
        when fx_basis in ('observation_day', 'newest_rate') then amount * usd_per_unit
        else amount
    end
