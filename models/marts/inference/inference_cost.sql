-- one row per inference scenario (catalog/inference_scenarios.csv) x accelerator x price
-- basis: replica size, decode and prefill throughput and USD per million output / input
-- tokens from the roofline macro inference_cost_estimate (the same one `gpucost estimate
-- --inference` calls). Every accelerator with a price and a dense peak at a usable precision.
--
-- columns:
--   scenario_id: the scenario's id in catalog/inference_scenarios.csv
--   question: the question the scenario answers
--   accelerator_name: the vendor's product name (accelerators.name)
--   precision: the precision the weights are stored and computed in (bf16, fp16, fp8, fp4 or int8);
--     peak_dense_tflops may be at another one
--   peak_dense_tflops [TFLOP/s]: dense peak at precision, or at the next precision the chip
--     computes in when it lacks it (fp4 on H100 -> fp8)
--   bandwidth_utilisation [fraction]: achieved / peak memory bandwidth assumed for decode
--     (assumption inference_bandwidth_utilisation)
--   compute_utilisation [fraction]: achieved / dense peak throughput assumed (the accelerator's
--     training MFU default, accelerator_cost_inputs.mfu_default)
--   batch_size [sequences]: sequences decoded together (one new token each per step)
--   context_tokens [tokens]: context held in the KV cache per sequence
--   weights_gb [GB]: params_total x bytes per value at precision / 10^9
--   kv_bytes_per_token [bytes]: KV-cache bytes per token of context: 2 x layers x KV heads x head
--     dimension x bytes per value at the scenario's kv_precision (0 without a model shape)
--   kv_cache_gb [GB]: batch_size x context_tokens x kv_bytes_per_token / 10^9
--   n_gpus [GPUs]: GPUs of one replica (tensor-parallel): the fewest whose memory holds the weights
--     and the KV cache
--   fits_in_memory: weights and KV cache fit in n_gpus x memory_gb
--   decode_step_ms [ms]: time of one decode step (one new token per sequence), roofline: the larger
--     of bytes read / (replica bandwidth x bandwidth_utilisation) and FLOPs / (replica peak x
--     compute_utilisation)
--   decode_bound: which side sets decode_step_ms: 'memory' or 'compute'
--   output_tokens_per_second [tokens/s]: generated tokens per second of the replica: batch_size /
--     decode step time
--   output_tokens_per_second_per_gpu [tokens/s per GPU]: output_tokens_per_second / n_gpus
--   prefill_tokens_per_second [tokens/s]: input (prompt) tokens per second of the replica,
--     compute-bound: replica peak x compute_utilisation / (2 x params_active)
--   price_basis: a price basis of price_bases (on_demand_min, on_demand_median, spot_min,
--     community_min, reserved_*_min, reserved_*_cud_est, owned)
--   provider: the provider behind the price basis (price_bases.provider); null for on_demand_median
--     and owned
--   basis_kind: observed, estimated (reserved_*_cud_est: an observed price less an assumed
--     discount; rental_3y_survey: an analyst's surveyed price), owned (owned, tco_*) or given
--     (price_bases.basis_kind)
--   basis_rank: the order a rental basis is chosen in, observed before estimated: 1 observed
--     rental, 2 estimated rental (reserved_*_cud_est), 3 observed rental in a pricing model no
--     default answer assumes (reserved_1m_min, reserved_6m_min, savings_plan_*_min, queued_min,
--     capacity_block_min); null for owned, analyst and given bases (price_bases.basis_rank)
--   sku: the offer behind the price basis (price_bases.sku)
--   price_per_gpu_hour [USD per GPU-hour]: the price basis' price of one GPU-hour
--   gpus_per_instance [GPUs]: the GPUs one rented instance must hold: the replica's n_gpus
--     rounded up to 1, 2, 4 or 8; rental bases are taken over offers of at least that size
--     (price_bases_by_size), else the closest smaller size
--   basis_gpu_count [GPUs]: GPUs per instance of the offer behind the basis; null for the
--     median, owned, analyst and given bases
--   observed_at [timestamp (UTC)]: when the basis price was observed (price_bases.observed_at);
--     null for owned
--   usd_per_million_input_tokens [USD per million tokens]: prefill cost of one million input
--     tokens: n_gpus x price_per_gpu_hour / (prefill_tokens_per_second x 3600) x 10^6
--   assumption_keys: the catalog assumptions (catalog/assumptions.csv keys) the row read:
--     inference_bandwidth_utilisation and the accelerator's MFU default where the scenario
--     leaves the utilisations out

with

scenarios as (

    select * from stg_curated__inference_scenarios

),

estimates as (

    select
        scenarios.scenario_id,
        scenarios.question,
        estimate.*
    from scenarios,
        lateral inference_cost_estimate(
            params := scenarios.params_active,
            params_total := scenarios.params_total,
            precision := scenarios.precision,
            kv_precision := scenarios.kv_precision,
            n_layers := scenarios.n_layers,
            n_kv_heads := scenarios.n_kv_heads,
            head_dim := scenarios.head_dim,
            context_tokens := scenarios.context_tokens,
            batch_size := scenarios.batch_size
        ) as estimate

)

select * from estimates
where estimates.price_per_gpu_hour is not null
    and estimates.peak_dense_tflops is not null
order by estimates.scenario_id, estimates.accelerator_id, estimates.price_basis
