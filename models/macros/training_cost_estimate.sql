-- returns one row per accelerator x price basis: the training cost of one run.
--
-- FLOPs (first that applies): `flops` as given; cluster time, n_gpus x days x 24 h x goodput
-- at mfu of the dense peak; else training_flops(params, tokens, ...), tokens defaulting to
-- tokens_per_param (Chinchilla, 20) x params_total (attention counted when n_layers, d_model
-- and seq_len are given).
-- compute_gpu_hours = gpu_hours_for_flops(FLOPs, peak, mfu); gpu_hours (what is paid for) =
-- compute_gpu_hours / goodput; wall_clock_days = gpu_hours / n_gpus / 24. Without n_gpus,
-- deadline_days sizes the cluster per accelerator: the fewest GPUs (whole nodes beyond one, at
-- least one model replica) that finish within that many days (cluster_from 'deadline'); a
-- platform that pipelines without scale-up fabric is capped where its bubble would grow (below).
-- cost_usd = gpu_hours x price_per_gpu_hour for every basis in price_bases (cheapest and median
-- on-demand, spot, community, committed, owned) plus 'given' when price_per_gpu_hour is passed.
-- A rental basis is taken at the size of the job (price_bases_by_size): gpus_per_node, the GPUs
-- one instance must hold, is the run's GPU count rounded up to 1, 2, 4 or 8 (the model-parallel
-- group at least; a whole node when the run is not given n_gpus or spans several nodes: 8
-- GPUs, or the part's node_gpus (mart scale_up_domains: a GB200 tray holds 4)); where no offer
-- of that size exists the closest smaller one is used and basis_fits_node is false
-- (basis_note says so; a ranking never uses such a row).
-- energy_mwh = training_energy_mwh(gpu_hours, ...), peak_cluster_power_mw at full load,
-- usd_per_million_tokens = cost_usd / tokens x 1e6.
-- accelerator: an id or any spelling in accelerator_aliases ("H100 SXM", "TPU v5p"); null =
-- every accelerator. mfu null = training_mfu: the in-run MFU of the calibrated MFU model (mart
-- mfu_model, in-run = effective utilisation / the catalog goodput, so a goodput given here
-- still scales the hours) for Ampere and Hopper, a TPU generation's MLPerf pair factor times
-- the curve of the fitted part it is measured against (mart mfu_generation_factors), and
-- Hopper's times the family's factor (mart mfu_family_factors: measured in MLPerf Training,
-- else the cited defaults' ratio) for every other family; default_training_mfu (generation
-- constant, FP8, MoE) only when no parameter count is given; other nulls take the catalog
-- assumption (cost_defaults: goodput, pue, electricity, ...).
--
-- Feasibility (macro training_memory_plan, per accelerator: feasible, min_gpus_memory,
-- gpus_per_model_replica, infeasible_reason, tensor/pipeline/data parallel): the training
-- state (training_state_bytes_per_param x params_total: mixed-precision Adam) and
-- one micro-batch of activations (layers x seq x micro_batch x d_model x 34 bytes with
-- selective recompute or 2 with full recompute, Korthikanti et al. 2022; layers and d_model
-- from params when not given: params = 12 L d^2, d = d_model_per_layer x L) must fit the
-- model-parallel group's usable memory (usable_memory_fraction); tensor parallelism stays in
-- the scale-up domain (mart scale_up_domains, at most max_tensor_parallel); a platform
-- without scale-up fabric cannot train a model whose group exceeds
-- pcie_max_model_parallel_gpus; n_gpus must hold one model replica (full recompute).
-- min_gpus_memory is the memory floor alone (state and activations spread evenly);
-- gpus_per_model_replica is the plan's tensor x pipeline group, which rounds tensor parallel
-- up to the scale-up domain, so it can exceed the floor.

create or replace macro training_cost_estimate(
    params := null,
    tokens := null,
    accelerator := null,
    params_total := null,
    tokens_per_param := null,
    precision := 'bf16',
    mfu := null,
    goodput := null,
    n_gpus := null,
    days := null,
    deadline_days := null,
    n_layers := null,
    d_model := null,
    seq_len := null,
    attention_causal := false,
    images := 0,
    tokens_per_image := 0,
    vision_params := 0,
    vision_frozen := false,
    lm_frozen := false,
    teacher_params := 0,
    recompute := 'none',
    micro_batch := null,
    flops := null,
    price_per_gpu_hour := null,
    pue := null,
    electricity_usd_per_kwh := null,
    server_to_chip_power := null
) as table
with

args as (

    select
        cast(params as double) as arg_params_active,
        cast(coalesce(params_total, params) as double) as arg_params_total,
        cast(tokens as double) as arg_tokens,
        cast(coalesce(tokens_per_param, defaults.default_tokens_per_param) as double)
            as arg_tokens_per_param,
        lower(coalesce(cast(precision as varchar), 'bf16')) as arg_precision,
        cast(mfu as double) as arg_mfu,
        cast(coalesce(goodput, defaults.default_goodput, 1.0) as double) as arg_goodput,
        cast(coalesce(defaults.default_goodput, 1.0) as double) as arg_default_goodput,
        cast(n_gpus as double) as arg_n_gpus,
        cast(days as double) as arg_days,
        cast(deadline_days as double) as arg_deadline_days,
        cast(n_layers as double) as arg_n_layers,
        cast(d_model as double) as arg_d_model,
        cast(seq_len as double) as arg_seq_len,
        coalesce(cast(attention_causal as boolean), false) as arg_attention_causal,
        coalesce(cast(images as double), 0) as arg_images,
        coalesce(cast(tokens_per_image as double), 0) as arg_tokens_per_image,
        coalesce(cast(vision_params as double), 0) as arg_vision_params,
        coalesce(cast(vision_frozen as boolean), false) as arg_vision_frozen,
        coalesce(cast(lm_frozen as boolean), false) as arg_lm_frozen,
        coalesce(cast(teacher_params as double), 0) as arg_teacher_params,
        lower(coalesce(cast(recompute as varchar), 'none')) as arg_recompute,
        cast(flops as double) as arg_flops,
        cast(price_per_gpu_hour as double) as arg_price,
        cast(coalesce(pue, defaults.default_pue) as double) as arg_pue,
        cast(
            coalesce(electricity_usd_per_kwh, defaults.default_electricity_usd_per_kwh)
            as double
        ) as arg_usd_per_kwh,
        cast(server_to_chip_power as double) as arg_power_ratio,
        cast(accelerator as varchar) as arg_accelerator,
        name_key(cast(accelerator as varchar))
            as arg_accelerator_key,
        defaults.default_mfu_fp8 as arg_default_mfu_fp8,
        defaults.default_moe_mfu_multiplier as arg_default_moe_mfu_multiplier,
        cast(micro_batch as double) as arg_micro_batch,
        -- the assumptions a figure left out defaults to (assumption_keys)
        list_filter([
            case when goodput is null then 'goodput' end,
            case when tokens is null and flops is null and days is null
                then 'tokens_per_param' end,
            case when pue is null then 'pue' end,
            case when electricity_usd_per_kwh is null then 'electricity_usd_per_kwh' end
        ], lambda key: key is not null) as arg_default_keys,
        list_filter([
            case when seq_len is null then 'activation_seq_len' end,
            case when micro_batch is null then 'activation_micro_batch' end,
            case when n_layers is null or d_model is null then 'd_model_per_layer' end
        ], lambda key: key is not null) as arg_shape_keys
    from cost_defaults as defaults

),

chosen as (

    select
        args.*,
        inputs.*,
        domains.domain_size as scale_up_domain_size,
        domains.scale_up_link,
        domains.has_scale_up_fabric,
        domains.form_factor,
        domains.node_gpus,
        precision_peak_tflops(
            args.arg_precision,
            inputs.peak_bf16_dense_tflops,
            inputs.peak_fp16_dense_tflops,
            inputs.peak_fp8_dense_tflops,
            inputs.peak_fp4_dense_tflops,
            inputs.peak_int8_dense_tflops
        ) as run_peak_tflops
    from args
    cross join accelerator_cost_inputs as inputs
    left join scale_up_domains as domains
        on domains.accelerator_id = inputs.accelerator_id
    left join accelerator_aliases as aliases
        on aliases.alias_key = args.arg_accelerator_key
    where args.arg_accelerator is null
        or inputs.accelerator_id = aliases.accelerator_id

),

sized as (

    select
        chosen.*,
        coalesce(
            chosen.arg_mfu,
            training_mfu(
                chosen.accelerator_id,
                chosen.family,
                chosen.arg_params_active,
                chosen.arg_params_total > chosen.arg_params_active,
                chosen.arg_precision,
                -- FP16 stands in for BF16 on parts without it (Volta, Turing)
                coalesce(chosen.peak_bf16_dense_tflops, chosen.peak_fp16_dense_tflops),
                chosen.run_peak_tflops,
                chosen.arg_default_goodput
            )
            -- the model's utilisation counts attention FLOPs at the run's shape: restated
            -- against the FLOPs counted here (attention only when the shape is given)
            * counted_flops_share(
                chosen.arg_params_active, chosen.arg_n_layers, chosen.arg_d_model,
                chosen.arg_seq_len
            ),
            default_training_mfu(
                chosen.mfu_default,
                chosen.arg_precision,
                chosen.arg_params_total > chosen.arg_params_active,
                chosen.arg_default_mfu_fp8,
                chosen.arg_default_moe_mfu_multiplier
            )
        ) as run_mfu,
        case
            when chosen.arg_mfu is not null then 'given'
            when chosen.arg_params_active > 0
                and coalesce(chosen.peak_bf16_dense_tflops, chosen.peak_fp16_dense_tflops) > 0
                then coalesce(
                    (select generations.mfu_source from mfu_generation_factors as generations
                     where generations.accelerator_id = chosen.accelerator_id
                        and generations.applied_factor is not null),
                    (select factors.mfu_source from mfu_family_factors as factors
                     where factors.family = chosen.family),
                    'mfu_model (Hopper)'
                )
            else
                (case when chosen.arg_precision = 'fp8' then 'mfu_fp8'
                    else chosen.mfu_assumption_key end)
                || (case when chosen.arg_params_total > chosen.arg_params_active
                    then ' x moe_mfu_multiplier' else '' end)
        end as run_mfu_source,
        coalesce(chosen.arg_power_ratio, chosen.server_to_chip_power) as run_power_ratio,
        case
            when chosen.arg_flops is not null then 'flops'
            when chosen.arg_days is not null and chosen.arg_n_gpus is not null
                then 'cluster_time'
            else 'params_tokens'
        end as flops_basis,
        coalesce(
            chosen.arg_tokens,
            chosen.arg_tokens_per_param * chosen.arg_params_total
        ) as tokens_for_flops
    from chosen

),

flopped as (

    select
        sized.*,
        case sized.flops_basis
            when 'flops' then sized.arg_flops
            when 'cluster_time' then sized.arg_n_gpus * sized.arg_days * 24 * sized.arg_goodput
                * 3600.0 * sized.run_peak_tflops * 1e12 * sized.run_mfu
            else training_flops(
                sized.arg_params_active,
                sized.tokens_for_flops,
                n_layers := sized.arg_n_layers,
                d_model := sized.arg_d_model,
                seq_len := sized.arg_seq_len,
                attention_causal := sized.arg_attention_causal,
                images := sized.arg_images,
                tokens_per_image := sized.arg_tokens_per_image,
                vision_params := sized.arg_vision_params,
                vision_frozen := sized.arg_vision_frozen,
                lm_frozen := sized.arg_lm_frozen,
                teacher_params := sized.arg_teacher_params,
                recompute := sized.arg_recompute
            )
        end as run_flops
    from sized

),

computed as (

    select
        flopped.*,
        case flopped.flops_basis
            when 'params_tokens' then flopped.tokens_for_flops
            else coalesce(flopped.arg_tokens, flopped.run_flops / (6 * flopped.arg_params_active))
        end as run_tokens,
        case flopped.flops_basis
            when 'cluster_time' then flopped.arg_n_gpus * flopped.arg_days * 24 * flopped.arg_goodput
            else gpu_hours_for_flops(flopped.run_flops, flopped.run_peak_tflops, flopped.run_mfu)
        end as run_compute_gpu_hours
    from flopped

),

billed as (

    -- the cluster: n_gpus as given; else, with deadline_days, the fewest GPUs that finish
    -- within it (at least the GPUs that can hold one replica, full recompute): rounded up to
    -- 1, 2, 4 or 8 within a node, to whole nodes (node_gpus, else 8) beyond. A platform whose
    -- plan pipelines without scale-up fabric pays the bubble applied below, which grows with
    -- data parallelism at the fixed global batch: with c = global_batch_tokens / (seq x
    -- micro-batch) sequences per step, g GPUs and p stages per replica, the run takes
    -- hours / 24 x (1 / n + (p - 1) / (c x g)) days on n GPUs, so n = 1 / (24 x days / hours
    -- - (p - 1) / (c x g)); it is capped where a step still holds p micro-batches per replica
    -- (n <= floor(c / p) x g: past it more GPUs buy little), and a deadline it cannot meet
    -- there takes the cap (wall_clock_days then exceeds deadline_days)
    select
        computed.* replace (
            coalesce(
                computed.arg_n_gpus,
                case when computed.arg_deadline_days > 0 then
                    case
                        when deadline.gpus <= coalesce(computed.node_gpus, 8)
                            then least(instance_gpus(deadline.gpus),
                                coalesce(computed.node_gpus, 8))
                        else ceil(deadline.gpus / coalesce(computed.node_gpus, 8))
                            * coalesce(computed.node_gpus, 8)
                    end
                end
            ) as arg_n_gpus
        ),
        case
            when computed.arg_n_gpus is not null then 'given'
            when computed.arg_deadline_days > 0 then 'deadline'
        end as cluster_from,
        computed.run_compute_gpu_hours / computed.arg_goodput as run_gpu_hours
    from computed,
        lateral training_memory_plan(
            computed.arg_params_active, computed.arg_params_total, computed.arg_n_layers,
            computed.arg_d_model, computed.arg_seq_len, computed.arg_micro_batch,
            computed.arg_recompute, null, computed.memory_gb, computed.scale_up_domain_size,
            computed.has_scale_up_fabric, computed.form_factor
        ) as replica,
        lateral (
            select
                computed.run_compute_gpu_hours / computed.arg_goodput as hours,
                replica.global_batch_tokens / (replica.shape_seq_len * replica.shape_micro_batch)
                    as sequences,
                replica.run_group / replica.run_tp as stages,
                replica.run_group as group_gpus,
                computed.arg_mfu is null
                    and not coalesce(computed.has_scale_up_fabric, false)
                    and replica.run_infeasible_reason is null
                    and replica.run_group / replica.run_tp > 1
                    and replica.global_batch_tokens > 0 as bubbled
        ) as shape,
        lateral (
            select case
                when shape.bubbled then least(
                    floor(shape.sequences / shape.stages) * shape.group_gpus,
                    case
                        when 24 * computed.arg_deadline_days / shape.hours
                            - (shape.stages - 1) / (shape.sequences * shape.group_gpus) > 0
                            then greatest(
                                ceil(1 / (24 * computed.arg_deadline_days / shape.hours
                                    - (shape.stages - 1)
                                        / (shape.sequences * shape.group_gpus))),
                                shape.group_gpus
                            )
                        else floor(shape.sequences / shape.stages) * shape.group_gpus
                    end
                )
                else greatest(
                    ceil(shape.hours / (24 * computed.arg_deadline_days)),
                    coalesce(replica.run_min_gpus, 1)
                )
            end as gpus
        ) as deadline

),

planned_run as (

    -- can the platform train the model, and how (macro training_memory_plan)
    select
        billed.*,
        plan.*
    from billed,
        lateral training_memory_plan(
            billed.arg_params_active, billed.arg_params_total, billed.arg_n_layers,
            billed.arg_d_model, billed.arg_seq_len, billed.arg_micro_batch, billed.arg_recompute,
            billed.arg_n_gpus, billed.memory_gb, billed.scale_up_domain_size,
            billed.has_scale_up_fabric, billed.form_factor
        ) as plan

),

bases as (

    select * from estimate_price_bases(price_per_gpu_hour := price_per_gpu_hour)

)

select
    ---------- the accelerator and the assumptions used
    billed.accelerator_id,
    billed.name as accelerator_name,
    billed.arg_precision as precision,
    billed.run_peak_tflops as peak_dense_tflops,
    billed.run_mfu as mfu,
    billed.run_mfu_source as mfu_source,
    billed.run_pipeline_efficiency as pipeline_efficiency,
    billed.arg_goodput as goodput,

    ---------- the run
    billed.arg_params_active as params_active,
    billed.arg_params_total as params_total,
    billed.run_tokens as tokens,
    billed.flops_basis,
    billed.run_flops as flops,
    billed.run_compute_gpu_hours as compute_gpu_hours,
    billed.run_gpu_hours as gpu_hours,
    billed.arg_n_gpus as n_gpus,
    -- where n_gpus comes from: 'given' (n_gpus), 'deadline' (the fewest that finish within
    -- deadline_days), null (not given: wall_clock_days and peak power are then null)
    billed.cluster_from,
    billed.run_gpu_hours / billed.arg_n_gpus / 24 as wall_clock_days,

    ---------- cost per price basis
    bases.* exclude (basis_note, basis_accelerator_id, basis_min_gpus, basis_gpu_count)
        replace ('USD' as currency),
    bases.basis_note
        || case
            when bases.basis_gpu_count < billed.run_gpus_per_node
                then '; no ' || bases.price_basis || ' offer of ' || billed.run_gpus_per_node
                    || ' or more GPUs per instance: the closest, a '
                    || printf('%g', bases.basis_gpu_count) || '-GPU instance'
            when bases.basis_gpu_count is null
                and bases.basis_min_gpus < billed.run_gpus_per_node
                then '; no ' || bases.price_basis || ' over offers of ' || billed.run_gpus_per_node
                    || ' or more GPUs per instance: taken over offers of at least '
                    || bases.basis_min_gpus
            else ''
        end as basis_note,
    billed.run_gpus_per_node as gpus_per_node,
    bases.basis_gpu_count,
    -- the offer's instance, or for a median the size its offers were taken at (at least
    -- basis_min_gpus GPUs each); null for a basis that is no rental (owned, analyst, given)
    coalesce(bases.basis_gpu_count, bases.basis_min_gpus) >= billed.run_gpus_per_node
        as basis_fits_node,
    billed.run_gpu_hours * bases.price_per_gpu_hour as cost_usd,
    billed.run_gpu_hours * bases.price_per_gpu_hour / billed.run_tokens * 1e6
        as usd_per_million_tokens,

    ---------- can the platform train the model (memory, scale-up domain, cluster size)
    case when billed.arg_params_total is not null then billed.run_infeasible_reason is null end
        as feasible,
    case when billed.arg_params_total is not null and billed.usable_bytes > 0
        then ceil((billed.state_bytes + billed.act_bytes_full) / billed.usable_bytes)
    end as min_gpus_memory,
    case
        when billed.run_infeasible_reason is null then billed.run_group
        else billed.run_min_gpus
    end as gpus_per_model_replica,
    billed.run_infeasible_reason as infeasible_reason,
    case when billed.run_infeasible_reason is null then billed.run_tp end as tensor_parallel,
    case when billed.run_infeasible_reason is null then billed.run_group / billed.run_tp end
        as pipeline_parallel,
    case when billed.run_infeasible_reason is null
        then floor(billed.arg_n_gpus / billed.run_group) end as data_parallel,
    case when billed.arg_params_total is not null then billed.run_activation_recompute end
        as activation_recompute,
    billed.scale_up_domain_size,
    billed.scale_up_link,
    billed.state_bytes / 1e9 as training_state_gb,
    billed.act_bytes / 1e9 as activation_gb,
    billed.shape_seq_len as activation_seq_len,
    billed.shape_micro_batch as activation_micro_batch,

    ---------- energy and power
    billed.tdp_w,
    billed.run_power_ratio as server_to_chip_power,
    billed.avg_power_fraction,
    billed.arg_pue as pue,
    billed.arg_usd_per_kwh as electricity_usd_per_kwh,
    training_energy_mwh(
        billed.run_gpu_hours, billed.tdp_w, billed.run_power_ratio, billed.avg_power_fraction,
        billed.arg_pue
    ) as energy_mwh,
    training_energy_mwh(
        billed.run_gpu_hours, billed.tdp_w, billed.run_power_ratio, billed.avg_power_fraction,
        billed.arg_pue
    ) * 1000 * billed.arg_usd_per_kwh as energy_cost_usd,
    peak_cluster_power_mw(billed.arg_n_gpus, billed.tdp_w, billed.run_power_ratio, billed.arg_pue)
        as peak_cluster_power_mw,

    ---------- the catalog assumptions (catalog/assumptions.csv keys) this row read
    list_filter(
        list_filter(
            regexp_extract_all(
                billed.run_mfu_source, '\b(?:mfu_[a-z0-9_]+|moe_mfu_multiplier)\b'
            ),
            lambda key: key <> 'mfu_model'
        )
        || case when billed.run_pipeline_efficiency < 1 then ['global_batch_tokens'] else [] end
        || [billed.server_to_chip_power_key, billed.avg_power_fraction_key]
        || coalesce(regexp_extract_all(bases.basis_note, '\((cud_discount_[a-z0-9_]+)\)', 1), [])
        -- the owned basis: Epoch's amortisation (ownership_cost) and its energy
        || case when bases.price_basis = 'owned' then [
            'server_cost_overhead', 'network_fraction_of_cluster',
            'depreciation_ooms_per_year', 'hours_per_year', 'electricity_usd_per_kwh', 'pue'
        ] else [] end
        -- feasibility: the training state, activations and the model-parallel limits
        || case when billed.arg_params_total is not null then [
            'training_state_bytes_per_param', 'usable_memory_fraction',
            'activation_bytes_full_recompute', 'max_tensor_parallel',
            'pcie_max_model_parallel_gpus'
        ] || case when billed.run_activation_recompute = 'selective'
            then ['activation_bytes_selective'] else [] end
        || billed.arg_shape_keys else [] end
        || billed.arg_default_keys,
        lambda key: key is not null
    ) as assumption_keys

from (
    select
        pipelined.*,
        -- the GPUs one instance must hold: the run's GPUs (at least its model-parallel group)
        -- rounded up to 1, 2, 4 or 8; 8 (full nodes) when the cluster is not given
        instance_gpus(least(
            greatest(coalesce(pipelined.arg_n_gpus, 8), coalesce(pipelined.run_min_gpus, 1)),
            coalesce(pipelined.node_gpus, 8)
        )) as run_gpus_per_node
    from (
        -- the pipeline bubble of a platform without scale-up fabric: a plan with p pipeline stages
        -- and m micro-batches per step idles (p - 1) / (m + p - 1) of the time (1F1B schedule,
        -- Narayanan et al. 2021, arXiv:2104.04473 §2.2), m = global_batch_tokens / (seq x
        -- micro-batch x data parallel). The calibrated MFU comes from runs on scale-up platforms,
        -- whose own bubbles it holds; a PCIe platform has none, so its bubble is applied here.
        select
            bubbled.* replace (
                bubbled.run_mfu * bubbled.run_pipeline_efficiency as run_mfu,
                bubbled.run_mfu_source || case when bubbled.run_pipeline_efficiency < 1
                    then ' x pipeline bubble ' || printf('%.2f', bubbled.run_pipeline_efficiency)
                    else '' end as run_mfu_source,
                bubbled.run_compute_gpu_hours / bubbled.run_pipeline_efficiency
                    as run_compute_gpu_hours,
                bubbled.run_gpu_hours / bubbled.run_pipeline_efficiency as run_gpu_hours
            )
        from (
            select
                planned_run.*,
                case
                    when planned_run.arg_mfu is not null
                        or planned_run.arg_n_gpus is null
                        or planned_run.run_group is null
                        or planned_run.run_tp is null
                        or planned_run.flops_basis = 'cluster_time'
                        or coalesce(planned_run.has_scale_up_fabric, false)
                        or planned_run.run_infeasible_reason is not null
                        or planned_run.run_group / planned_run.run_tp <= 1
                        or floor(planned_run.arg_n_gpus / planned_run.run_group) < 1
                        or planned_run.global_batch_tokens is null
                        then 1.0
                    else (planned_run.global_batch_tokens / (planned_run.shape_seq_len
                            * planned_run.shape_micro_batch
                            * floor(planned_run.arg_n_gpus / planned_run.run_group)))
                        / (planned_run.global_batch_tokens / (planned_run.shape_seq_len
                            * planned_run.shape_micro_batch
                            * floor(planned_run.arg_n_gpus / planned_run.run_group))
                            + planned_run.run_group / planned_run.run_tp - 1)
                end as run_pipeline_efficiency
            from planned_run
        ) as bubbled
    ) as pipelined
) as billed
left join bases
    on bases.basis_accelerator_id = billed.accelerator_id
    and (bases.basis_min_gpus is null or bases.basis_min_gpus <= billed.run_gpus_per_node)
-- per basis, the offers of the size the run needs, else the closest smaller size
qualify row_number() over (
    partition by billed.accelerator_id, bases.price_basis
    order by bases.basis_min_gpus desc nulls last
) = 1
