-- returns one row: whether a training run fits an accelerator's memory and how it is split
-- (the feasibility part of training_cost_estimate, which calls it per accelerator).
--
-- The training state (training_state_bytes_per_param x params_total: mixed-precision Adam) and
-- one micro-batch of activations (layers x seq x micro_batch x d_model x 34 bytes with
-- selective recompute or 2 with full recompute, Korthikanti et al. 2022; layers and d_model
-- from params when not given: params = 12 L d^2, d = d_model_per_layer x L) must fit the
-- model-parallel group's usable memory (usable_memory_fraction); tensor parallelism stays in
-- the scale-up domain (at most max_tensor_parallel); a platform without scale-up fabric cannot
-- train a model whose group exceeds pcie_max_model_parallel_gpus; n_gpus must hold one model
-- replica (full recompute). Returns the plan (run_group GPUs per replica, run_tp tensor
-- parallel, run_activation_recompute), run_min_gpus (the fewest GPUs that can train it, full
-- recompute), run_infeasible_reason (null: feasible), and the sizes behind them.

create or replace macro training_memory_plan(
    params_active, params_total, n_layers, d_model, seq_len, micro_batch, recompute, n_gpus,
    memory_gb, scale_up_domain_size, has_scale_up_fabric, form_factor
) as table
with

-- the run (nulls take the assumptions: layers and width from params, activation_seq_len,
-- activation_micro_batch) and the accelerator
inputs as (

    select
        params_active as arg_params_active, params_total as arg_params_total,
        n_layers as arg_n_layers, d_model as arg_d_model, seq_len as arg_seq_len,
        micro_batch as arg_micro_batch, recompute as arg_recompute, n_gpus as arg_n_gpus,
        memory_gb as memory_gb, scale_up_domain_size as scale_up_domain_size,
        has_scale_up_fabric as has_scale_up_fabric, form_factor as form_factor

),

memory_defaults as (

    select
        max(value) filter (where assumption_key = 'training_state_bytes_per_param')
            as state_bytes_per_param,
        max(value) filter (where assumption_key = 'usable_memory_fraction')
            as usable_memory_fraction,
        max(value) filter (where assumption_key = 'activation_micro_batch')
            as activation_micro_batch,
        max(value) filter (where assumption_key = 'activation_bytes_selective')
            as activation_bytes_selective,
        max(value) filter (where assumption_key = 'activation_bytes_full_recompute')
            as activation_bytes_full_recompute,
        max(value) filter (where assumption_key = 'max_tensor_parallel') as max_tensor_parallel,
        max(value) filter (where assumption_key = 'pcie_max_model_parallel_gpus')
            as pcie_max_model_parallel_gpus,
        max(value) filter (where assumption_key = 'global_batch_tokens') as global_batch_tokens
    from cost_assumptions

),

shaped as (

    -- the model's shape and memory (Korthikanti et al. 2022; ZeRO 16 bytes per parameter)
    select
        inputs.*,
        mem.state_bytes_per_param,
        mem.pcie_max_model_parallel_gpus,
        mem.global_batch_tokens,
        model_shape(
            inputs.arg_params_active, inputs.arg_n_layers, inputs.arg_d_model, inputs.arg_seq_len
        ) as shape,
        coalesce(inputs.arg_micro_batch, mem.activation_micro_batch) as shape_micro_batch,
        mem.state_bytes_per_param * inputs.arg_params_total as state_bytes,
        inputs.memory_gb * 1e9 * mem.usable_memory_fraction as usable_bytes,
        least(coalesce(inputs.scale_up_domain_size, 1), mem.max_tensor_parallel) as tp_cap,
        mem.activation_bytes_selective,
        mem.activation_bytes_full_recompute
    from inputs
    cross join memory_defaults as mem

),

activations as (

    select
        shaped.*,
        shaped.shape.layers as shape_layers,
        shaped.shape.d_model as shape_d_model,
        shaped.shape.seq_len as shape_seq_len,
        shaped.shape.layers * shaped.shape.seq_len * shaped.shape_micro_batch
            * shaped.shape.d_model as act_per_byte_coefficient
    from shaped

),

grouped as (

    -- activation bytes of one micro-batch over the whole model: selective recompute (34 bytes
    -- per token, d_model and layer, the default) and full recompute (2); split over tensor
    -- parallel. The first pipeline stage holds p micro-batches of L/p layers: L layers' worth.
    select
        activations.*,
        activations.act_per_byte_coefficient * activations.activation_bytes_selective
            as act_bytes_selective,
        activations.act_per_byte_coefficient * activations.activation_bytes_full_recompute
            as act_bytes_full
    from activations

),

sized_group as (

    -- the smallest model-parallel group (tensor x pipeline) whose memory holds the training
    -- state plus the activations: one GPU when everything fits, else tensor parallel over the
    -- scale-up domain (at most max_tensor_parallel) and as many pipeline stages as needed
    select
        grouped.*,
        case
            when grouped.state_bytes + grouped.act_bytes_full <= grouped.usable_bytes then 1
            when grouped.usable_bytes - grouped.act_bytes_full / grouped.tp_cap > 0
                then grouped.tp_cap * ceil(grouped.state_bytes
                    / (grouped.tp_cap
                        * (grouped.usable_bytes - grouped.act_bytes_full / grouped.tp_cap)))
        end as min_gpus_full,
        case
            when grouped.state_bytes + grouped.act_bytes_selective <= grouped.usable_bytes then 1
            when grouped.usable_bytes - grouped.act_bytes_selective / grouped.tp_cap > 0
                then grouped.tp_cap * ceil(grouped.state_bytes
                    / (grouped.tp_cap
                        * (grouped.usable_bytes - grouped.act_bytes_selective / grouped.tp_cap)))
        end as min_gpus_selective
    from grouped

),

planned as (

    -- the plan on n_gpus: selective recompute when it fits the cluster and full recompute was
    -- not asked for, else full recompute. min_gpus is the fewest GPUs that can train the model
    -- at all (with full recompute).
    select
        sized_group.*,
        sized_group.min_gpus_full as run_min_gpus,
        case
            when sized_group.arg_recompute != 'full'
                and sized_group.min_gpus_selective <= sized_group.arg_n_gpus
                then 'selective'
            else 'full'
        end as run_activation_recompute
    from sized_group

),

feasibility as (

    select
        planned.*,
        case planned.run_activation_recompute
            when 'selective' then planned.min_gpus_selective else planned.min_gpus_full
        end as run_group,
        case planned.run_activation_recompute
            when 'selective' then planned.act_bytes_selective else planned.act_bytes_full
        end as act_bytes,
        case
            when case planned.run_activation_recompute
                    when 'selective' then planned.min_gpus_selective
                    else planned.min_gpus_full end = 1 then 1
            else planned.tp_cap
        end as run_tp,
        case
            when planned.arg_params_total is null then null
            when planned.memory_gb is null
                then 'no memory figure for this accelerator in the catalog'
            when planned.min_gpus_full is null
                then 'one micro-batch of activations ('
                    || printf('%.0f', planned.act_bytes_full / 1e9) || ' GB at seq '
                    || printf('%.0f', planned.shape_seq_len)
                    || ', full recompute) does not fit a ' || printf('%g', planned.memory_gb)
                    || ' GB accelerator even over tensor parallel '
                    || printf('%.0f', planned.tp_cap)
            when not coalesce(planned.has_scale_up_fabric, false)
                and planned.min_gpus_full > planned.pcie_max_model_parallel_gpus
                then 'no scale-up fabric (' || coalesce(planned.form_factor, '?')
                    || '): the model needs a model-parallel group of at least '
                    || printf('%.0f', planned.min_gpus_full)
                    || ' GPUs to hold ' || printf('%.3g', planned.state_bytes / 1e12)
                    || ' TB of weights, gradients and Adam state, more than one '
                    || printf('%.0f', planned.pcie_max_model_parallel_gpus)
                    || '-GPU PCIe server (assumption pcie_max_model_parallel_gpus)'
            when planned.arg_n_gpus < planned.min_gpus_full
                then printf('%.0f', planned.arg_n_gpus) || ' GPUs are fewer than the '
                    || printf('%.0f', planned.min_gpus_full)
                    || ' needed to hold ' || printf('%.3g', planned.state_bytes / 1e12)
                    || ' TB of weights, gradients and Adam state ('
                    || printf('%g', planned.state_bytes_per_param)
                    || ' bytes x params_total) plus activations (full recompute) in '
                    || printf('%g', planned.memory_gb) || ' GB each'
        end as run_infeasible_reason
    from planned

)

select
    feasibility.state_bytes_per_param,
    feasibility.pcie_max_model_parallel_gpus,
    feasibility.global_batch_tokens,
    feasibility.shape_seq_len,
    feasibility.shape_micro_batch,
    feasibility.state_bytes,
    feasibility.usable_bytes,
    feasibility.tp_cap,
    feasibility.act_bytes_full,
    feasibility.run_min_gpus,
    feasibility.run_activation_recompute,
    feasibility.run_group,
    feasibility.act_bytes,
    feasibility.run_tp,
    feasibility.run_infeasible_reason
from feasibility
