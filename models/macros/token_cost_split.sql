-- returns the cost of a million input tokens, a million output tokens and a blended million,
-- when a measured GPU-hour serves queries of `input_tokens` in and `output_tokens` out
-- (docs/cost-models.md, "Input and output tokens apart"):
--
-- * usd_per_million_output_all_in: the whole GPU-hour charged to the output tokens (price per
--   GPU-hour / (output tokens/s per GPU x 3600) x 10^6), so one query costs
--   usd_per_million_output_all_in x output_tokens / 10^6;
-- * output_to_input_cost_ratio: what one output token costs in GPU time against one input
--   token (the roofline's decode seconds per output token / prefill seconds per input token,
--   inference_cost_estimate's prefill_tokens_per_second / output_tokens_per_second);
-- * the query's cost is split in proportion input_tokens : output_tokens x ratio, so
--   input = all_in x output_tokens / (input_tokens + output_tokens x ratio), output = ratio x
--   input, and input_tokens x input + output_tokens x output = the query's cost (nothing is
--   lost or counted twice);
-- * blended = (blend_input_per_output x input + output) / (blend_input_per_output + 1): the
--   price of a million tokens of which blend_input_per_output in every blend + 1 are input.
-- Null where an input is null or not positive.

create or replace macro token_cost_split(
    usd_per_million_output_all_in, input_tokens, output_tokens, output_to_input_cost_ratio,
    blend_input_per_output
) as struct_pack(
    usd_per_million_input_tokens := token_cost_input_share(
        usd_per_million_output_all_in, input_tokens, output_tokens, output_to_input_cost_ratio),
    usd_per_million_output_tokens := token_cost_input_share(
        usd_per_million_output_all_in, input_tokens, output_tokens, output_to_input_cost_ratio)
        * output_to_input_cost_ratio,
    usd_per_million_tokens_blended := case when blend_input_per_output >= 0 then
        token_cost_input_share(
            usd_per_million_output_all_in, input_tokens, output_tokens, output_to_input_cost_ratio)
        * (blend_input_per_output + output_to_input_cost_ratio) / (blend_input_per_output + 1)
    end
)
