-- returns the roofline time of one decode step (one new token for each of the batch's
-- sequences): the larger of the memory time (weights + KV-cache bytes read, at
-- bandwidth_utilisation of the memory bandwidth) and the compute time (FLOPs at
-- compute_utilisation of the dense peak). Bandwidth in TB/s, peak in TFLOP/s.

create or replace macro decode_step_seconds(
    bytes_read, step_flops, memory_bw_tbps, bandwidth_utilisation, peak_dense_tflops,
    compute_utilisation
) as greatest(
    bytes_read / (memory_bw_tbps * 1e12 * bandwidth_utilisation),
    step_flops / (peak_dense_tflops * 1e12 * compute_utilisation)
)
