-- returns the USD per million input tokens of token_cost_split: a query's cost
-- (usd_per_million_output_all_in x output_tokens / 10^6) shared in proportion input_tokens :
-- output_tokens x output_to_input_cost_ratio, per input token; null where an input is null or
-- not positive.

create or replace macro token_cost_input_share(
    usd_per_million_output_all_in, input_tokens, output_tokens, output_to_input_cost_ratio
) as case
    when input_tokens > 0 and output_tokens > 0 and output_to_input_cost_ratio > 0
        and usd_per_million_output_all_in >= 0
        then usd_per_million_output_all_in * output_tokens
            / (input_tokens + output_tokens * output_to_input_cost_ratio)
end
