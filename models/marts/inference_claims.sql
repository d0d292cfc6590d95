-- one row per inference scenario with a claimed cost ratio x price basis both platforms have
-- (a claim with no priced pair keeps one row with null figures): the vendor's claimed "N x
-- lower cost per million tokens" beside the ratio the roofline (specs) and live prices
-- support, from the macro inference_cost_ratio. claim_to_supported > 1 means the claim is
-- larger than specs and prices support.

with

claims as (

    select * from stg_curated__inference_scenarios
    where claimed_ratio is not null

),

final as (

    select
        claims.scenario_id,
        claims.question,
        claims.accelerator,
        claims.baseline_accelerator,
        claims.claimed_ratio,
        claims.claim_source_url,
        ratio.price_basis,
        ratio.accelerator_id,
        ratio.baseline_accelerator_id,
        ratio.provider,
        ratio.baseline_provider,
        ratio.price_per_gpu_hour,
        ratio.baseline_price_per_gpu_hour,
        ratio.throughput_ratio_per_gpu,
        ratio.price_ratio,
        ratio.usd_per_million_output_tokens,
        ratio.baseline_usd_per_million_output_tokens,
        ratio.cost_ratio as supported_ratio,
        claims.claimed_ratio / ratio.cost_ratio as claim_to_supported,
        claims.note
    from claims
    left join lateral inference_cost_ratio(
        claims.accelerator,
        claims.baseline_accelerator,
        params := claims.params_active,
        params_total := claims.params_total,
        precision := claims.precision,
        kv_precision := claims.kv_precision,
        n_layers := claims.n_layers,
        n_kv_heads := claims.n_kv_heads,
        head_dim := claims.head_dim,
        context_tokens := claims.context_tokens,
        batch_size := claims.batch_size
    ) as ratio
        on true

)

select * from final
order by final.scenario_id, final.price_basis
