-- returns the MFU that `gpu_hours` imply for `flops` at a dense peak (TFLOP/s): a lower bound
-- on in-run MFU, since reported hours also hold restarts, evaluation and stalls.

create or replace macro implied_mfu(flops, gpu_hours, peak_dense_tflops) as
    flops / (gpu_hours * 3600.0 * peak_dense_tflops * 1e12)
