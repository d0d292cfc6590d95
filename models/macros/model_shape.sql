-- returns the shape a transformer of params_active parameters is taken to have when the run
-- does not give it: {'layers', 'd_model', 'seq_len'}. Layers from params = 12 x layers x
-- d_model^2 with d_model = d_model_per_layer x layers (assumption d_model_per_layer, 128:
-- Llama 3 8B 4,096 / 32), the width from the layers, the sequence length activation_seq_len
-- (4,096). A given figure is kept. Used for the attention FLOPs of an estimate
-- (training_cost_estimate) and its activation memory (training_memory_plan).

create or replace macro model_shape(params_active, n_layers, d_model, seq_len) as (
    select {
        'layers': shape.layers,
        'd_model': coalesce(d_model, shape.per_layer * shape.layers),
        'seq_len': coalesce(seq_len, shape.seq_len)
    }
    from (
        select
            coalesce(
                n_layers,
                round(power(params_active / (12 * power(mem.per_layer, 2)), 1.0 / 3))
            ) as layers,
            mem.per_layer,
            mem.seq_len
        from (
            select
                max(value) filter (where assumption_key = 'd_model_per_layer') as per_layer,
                max(value) filter (where assumption_key = 'activation_seq_len') as seq_len
            from cost_assumptions
        ) as mem
    ) as shape
)
