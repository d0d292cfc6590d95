-- guards: every accelerator in the `accelerators` mart has a training throughput (bf16, or
-- fp16 where the part has no bf16), memory and memory bandwidth.

with

accelerator_rows as (

    select * from accelerators

)

select
    accelerator_rows.accelerator_id,
    accelerator_rows.peak_training_dense_tflops,
    accelerator_rows.memory_gb,
    accelerator_rows.memory_bw_tbps
from accelerator_rows
where accelerator_rows.peak_training_dense_tflops is null
    or accelerator_rows.memory_gb is null
    or accelerator_rows.memory_bw_tbps is null
