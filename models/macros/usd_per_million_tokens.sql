-- returns the USD per million tokens of a replica that costs `usd_per_hour` and produces
-- `tokens_per_second`.

create or replace macro usd_per_million_tokens(usd_per_hour, tokens_per_second) as
    usd_per_hour / (tokens_per_second * 3600.0) * 1e6
