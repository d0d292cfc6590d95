-- one row per system sold whole (a GB200 / GB300 NVL72 rack) with a cited price
-- (catalog/system_prices.csv): the price of the system and its accelerators, for an owned
-- cost per GPU-hour where no chip price is published.

select * from curated.system_prices
