-- one row per training scenario (catalog/training_scenarios.csv) x accelerator x price basis:
-- FLOPs, GPU-hours, wall-clock days, cost, energy, peak power and USD per million tokens,
-- from the macro training_cost_estimate (the same one `gpucost estimate` calls). A scenario
-- that pins an accelerator is evaluated on it only; otherwise on every accelerator with a
-- price. Rows without a price are left out, except for a pinned accelerator (one row with a
-- null price basis: FLOPs, hours and energy still answer the question). A scenario that names
-- its own price (the seed's "2 USD per H100-hour") is priced at that price only: its rows
-- have price_basis 'given', so its label and its cost agree. Every row says whether the
-- platform can train the model at all (feasible, gpus_per_model_replica, infeasible_reason: memory for the
-- weights, gradients, Adam state and activations, the scale-up domain, the cluster size);
-- rankings leave out the infeasible ones.
--
-- columns:
--   scenario_id: the scenario's id in catalog/training_scenarios.csv
--   question: the question the scenario answers
--   scenario_accelerator: the accelerator the scenario pins, as the catalog spells it; null =
--     evaluated on every accelerator with a price
--   accelerator_name: the vendor's product name (accelerators.name)
--   precision: the run's training precision (bf16 unless the scenario says fp16, fp8, fp4 or int8)
--   peak_dense_tflops [TFLOP/s]: dense peak throughput at precision (bf16 and fp16 stand in for
--     each other where a part lacks one)
--   mfu [fraction]: in-run model FLOPs utilisation against peak_dense_tflops (goodput is
--     separate): the scenario's, else training_mfu: the calibrated MFU model (mart mfu_model)
--     for Ampere, Hopper and TPU, Hopper's times the family factor (mart mfu_family_factors:
--     measured in MLPerf Training, else the cited defaults' ratio) for other families, times
--     pipeline_efficiency; default_training_mfu only without a parameter count
--   mfu_source: where mfu comes from: 'given' (the scenario), 'mfu_model', the family factor's
--     words (mfu_family_factors.mfu_source) with ' x pipeline bubble' when one applies, or the
--     assumption key of default_training_mfu
--   pipeline_efficiency [fraction]: share of time a platform without scale-up fabric computes
--     when its plan needs pipeline stages: m / (m + p - 1), m micro-batches per step
--     (global_batch_tokens / (seq x micro-batch x data parallel)), p stages (1F1B schedule,
--     arXiv:2104.04473); 1 elsewhere (the calibrated MFU holds scale-up platforms' own bubbles)
--   goodput [fraction]: wall-clock efficiency on top of MFU (failures, restarts, checkpoints): the
--     scenario's, else assumption goodput
--   tokens [tokens]: training tokens: as given, else tokens_per_param x params_total; for a run
--     given by cluster time or FLOPs without tokens, flops / (6 x params_active)
--   flops_basis: how flops is found: 'params_tokens' (training_flops: 6 N D plus the scenario's
--     optional terms), 'cluster_time' (n_gpus x days x 24 h x goodput at mfu of the peak) or
--     'flops' (given)
--   flops [FLOP]: training compute of the run
--   compute_gpu_hours [GPU-hours]: accelerator-hours to execute flops at mfu of peak_dense_tflops,
--     before goodput
--   gpu_hours [GPU-hours]: GPU-hours paid for: compute_gpu_hours / goodput
--   n_gpus [GPUs]: cluster size the scenario gives; null when it gives none
--   cluster_from: where n_gpus comes from: 'given' (the scenario's n_gpus), 'deadline' (the
--     fewest GPUs that finish within deadline_days, a `gpucost estimate --days` call only);
--     null without a cluster
--   wall_clock_days [days]: gpu_hours / n_gpus / 24; null without n_gpus
--   feasible: the platform can train the model on n_gpus: its memory holds the training state
--     (training_state_bytes_per_param x params_total) and one micro-batch of activations over
--     a model-parallel group of at most gpus_per_model_replica, tensor parallelism stays in the scale-up
--     domain, and a platform without scale-up fabric needs no model-parallel group beyond
--     pcie_max_model_parallel_gpus; null when no parameter count is known
--   min_gpus_memory [GPUs]: the memory floor: training state plus one micro-batch of
--     activations (full recompute) over the usable memory of one accelerator, rounded up, as
--     if spread evenly; not a plan (a plan's group is gpus_per_model_replica)
--   gpus_per_model_replica [GPUs]: the accelerators one copy of the model spans in the plan,
--     tensor x pipeline parallel (tensor parallel over the scale-up domain, at most
--     max_tensor_parallel); when infeasible, the smallest such group with full recompute; null
--     when even that does not fit
--   infeasible_reason: why feasible is false, in words with the figures; null when feasible
--   tensor_parallel [GPUs]: tensor-parallel degree of the plan on n_gpus (1 when the model fits
--     one accelerator); null when infeasible
--   pipeline_parallel [stages]: pipeline stages of the plan; null when infeasible
--   data_parallel [replicas]: floor(n_gpus / (tensor_parallel x pipeline_parallel)); null when
--     infeasible
--   activation_recompute: the activation memory of the plan: 'selective' (34 bytes per token,
--     d_model and layer) when it fits n_gpus and --recompute full was not asked, else 'full' (2)
--   scale_up_domain_size [accelerators]: accelerators in one scale-up domain (mart
--     scale_up_domains; 1 = no scale-up fabric)
--   scale_up_link: the scale-up fabric (scale_up_domains.scale_up_link)
--   training_state_gb [GB]: training_state_bytes_per_param x params_total / 10^9
--   activation_gb [GB]: activations of one micro-batch over the whole model, with the plan's
--     recompute: layers x seq x micro-batch x d_model x bytes (34 or 2) / 10^9
--   activation_seq_len [tokens]: the sequence length activations are sized at (seq_len, else
--     assumption activation_seq_len)
--   activation_micro_batch [sequences]: the micro-batch activations are sized at (assumption
--     activation_micro_batch)
--   price_basis: a price basis of price_bases (on_demand_min, on_demand_median, spot_min,
--     community_min, reserved_*_min, reserved_*_cud_est, owned) or 'given' (the scenario's own
--     price); null on the one row of a pinned accelerator without a price
--   provider: the provider behind the price basis (price_bases.provider); null for
--     on_demand_median, owned and given
--   basis_kind: observed, estimated (reserved_*_cud_est: an observed price less an assumed
--     discount; rental_3y_survey: an analyst's surveyed price), owned (owned, tco_*) or given
--     (price_bases.basis_kind)
--   basis_rank: the order a rental basis is chosen in, observed before estimated: 1 observed
--     rental, 2 estimated rental (reserved_*_cud_est), 3 observed rental in a pricing model no
--     default answer assumes (reserved_1m_min, reserved_6m_min, savings_plan_*_min, queued_min,
--     capacity_block_min); null for owned, analyst and given bases (price_bases.basis_rank)
--   sku: the offer behind the price basis (price_bases.sku)
--   price_per_gpu_hour [USD per GPU-hour]: the price basis' price of one GPU-hour
--   observed_at [timestamp (UTC)]: when the basis price was observed (price_bases.observed_at);
--     null for owned and given
--   basis_note: how the basis price was formed (price_bases.basis_note); says when no offer of
--     the size the run needs exists and which size was used instead
--   gpus_per_node [GPUs]: the GPUs one rented instance must hold for this run: its GPU count (at
--     least its model-parallel group) rounded up to 1, 2, 4 or 8; 8 (full nodes) when the run
--     spans several nodes or names no cluster size. Rental bases are taken over offers of at
--     least that size (price_bases_by_size)
--   basis_gpu_count [GPUs]: GPUs per instance of the offer behind the basis; null for the
--     median, owned, analyst and given bases
--   basis_fits_node: whether that offer (for the median: the offers it was taken over) holds
--     gpus_per_node GPUs (false: no offer of that size, the closest smaller one is used; a
--     ranking never uses such a row); null for the owned, analyst and given bases
--   cost_usd [USD]: gpu_hours x price_per_gpu_hour
--   usd_per_million_tokens [USD per million tokens]: cost_usd / tokens x 10^6
--   energy_mwh [MWh]: facility energy of the run: gpu_hours x tdp_w x server_to_chip_power x
--     avg_power_fraction x pue
--   energy_cost_usd [USD]: energy_mwh x 1000 x electricity_usd_per_kwh (shown beside cost_usd, not
--     added to it)
--   peak_cluster_power_mw [MW]: facility power of n_gpus at full load: n_gpus x tdp_w x
--     server_to_chip_power x pue; null without n_gpus
--   assumption_keys: the catalog assumptions (catalog/assumptions.csv keys) the row read: the
--     MFU's, the power keys, a discount's, the owned basis', feasibility's and the defaults of
--     the figures the scenario leaves out

with

scenarios as (

    select * from stg_curated__training_scenarios

),

estimates as (

    select
        scenarios.scenario_id,
        scenarios.question,
        scenarios.accelerator as scenario_accelerator,
        scenarios.price_per_gpu_hour as scenario_price,
        estimate.*
    from scenarios,
        lateral training_cost_estimate(
            params := scenarios.params_active,
            tokens := scenarios.tokens,
            accelerator := scenarios.accelerator,
            params_total := scenarios.params_total,
            tokens_per_param := scenarios.tokens_per_param,
            precision := scenarios.precision,
            mfu := scenarios.mfu,
            goodput := scenarios.goodput,
            n_gpus := scenarios.n_gpus,
            days := scenarios.days,
            n_layers := scenarios.n_layers,
            d_model := scenarios.d_model,
            seq_len := scenarios.seq_len,
            images := scenarios.images,
            tokens_per_image := scenarios.tokens_per_image,
            vision_params := scenarios.vision_params,
            vision_frozen := scenarios.vision_frozen,
            price_per_gpu_hour := scenarios.price_per_gpu_hour
        ) as estimate

)

select estimates.* exclude (scenario_price)
from estimates
where (estimates.price_per_gpu_hour is not null or estimates.scenario_accelerator is not null)
    and estimates.peak_dense_tflops is not null
    -- a scenario that names its own price is priced at it only (its price basis is 'given')
    and (estimates.scenario_price is null or estimates.price_basis = 'given')
order by estimates.scenario_id, estimates.accelerator_id, estimates.price_basis
