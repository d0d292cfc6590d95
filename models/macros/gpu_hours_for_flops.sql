-- returns the accelerator-hours to execute `flops` at `mfu` of the dense peak (TFLOP/s),
-- divided by goodput (wall-clock efficiency: failures, restarts, checkpoints; 1 = none).

create or replace macro gpu_hours_for_flops(flops, peak_dense_tflops, mfu, goodput := 1.0) as
    flops / (peak_dense_tflops * 1e12 * mfu * 3600.0) / goodput
