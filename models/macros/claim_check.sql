-- returns a struct: a vendor's claimed ratio set beside what specs, prices and measurements
-- support (the one claim check of the inference_claims mart and `gpucost estimate inference
-- --compare --claim`). claim_kind: cost_per_token (the claim: N x lower USD per million
-- tokens) or throughput_per_gpu (N x the tokens per second per GPU).
--   measured_cost_ratio = measured_ratio / price_ratio: how many times cheaper per million
--     output tokens the platform is at the measured throughput ratio and this price ratio;
--   claim_to_supported = claimed_ratio / supported_ratio (cost claim) or claimed_ratio /
--     throughput_ratio (throughput claim): > 1, the claim exceeds the roofline;
--   claim_to_measured = claimed_ratio / measured_cost_ratio (cost claim) or claimed_ratio /
--     measured_ratio (throughput claim): > 1, the claim exceeds what was measured;
--   price_ratio_needed = measured_ratio / claimed_ratio (cost claim only): the platform /
--     baseline price ratio at which the measured throughput gives the claimed cost ratio.

create or replace macro claim_check(
    claimed_ratio,
    claim_kind,
    price_ratio,
    measured_ratio,
    supported_ratio := null,
    throughput_ratio := null
) as {
    'measured_cost_ratio': measured_ratio / price_ratio,
    'claim_to_supported': claimed_ratio / case claim_kind
        when 'throughput_per_gpu' then throughput_ratio
        else supported_ratio
    end,
    'claim_to_measured': claimed_ratio / case claim_kind
        when 'throughput_per_gpu' then measured_ratio
        else measured_ratio / price_ratio
    end,
    'price_ratio_needed': case when claim_kind = 'cost_per_token'
        then measured_ratio / claimed_ratio
    end
}
