-- returns US dollars per unit of a currency from the ECB's euro cross rates of one day (units
-- per 1 EUR): usd_per_eur / units_per_eur. The euro itself (units_per_eur 1) is usd_per_eur;
-- GBP on 2026-10-30: 1.1172 / 0.8338 = 1.33989 USD per GBP.

create or replace macro usd_per_unit(usd_per_eur, units_per_eur) as
    usd_per_eur / units_per_eur
