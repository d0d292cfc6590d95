-- returns the share of a run's model FLOPs, counted with attention at its shape (model_shape:
-- the assumed shape for what is not given), that training_flops counts with the shape as given
-- (attention only when n_layers, d_model and seq_len are all given): 1 for a given shape, else
-- 6N / (6N + 12 L d s). The calibrated MFU model's utilisation counts attention FLOPs; times
-- this share it is the utilisation of the FLOPs an estimate counts.

create or replace macro counted_flops_share(params_active, n_layers, d_model, seq_len) as (
    select
        training_flops(
            params_active, 1, n_layers := n_layers, d_model := d_model, seq_len := seq_len
        )
        / training_flops(
            params_active, 1, n_layers := assumed.shape.layers,
            d_model := assumed.shape.d_model, seq_len := assumed.shape.seq_len
        )
    from (select model_shape(params_active, n_layers, d_model, seq_len) as shape) as assumed
)
