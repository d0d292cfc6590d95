-- guards: every accelerator in the `accelerators` mart has a training throughput (bf16, or
-- fp16 where the part has no bf16), memory and memory bandwidth. A part without 16-bit
-- arithmetic (Kepler K80, Maxwell M60 / M4000: no FP16 rate, no tensor cores) has no training
-- throughput by nature; it passes only when its provenance says so (a peak_fp16_dense_tflops
-- record 'unpublished' in the spec_provenance mart, from catalog/accelerator_spec_sources.csv)
-- and no source fills the cell.

with

accelerator_rows as (

    select * from accelerators

),

no_16_bit as (

    select provenance.accelerator_id
    from spec_provenance as provenance
    where provenance.metric = 'peak_fp16_dense_tflops'
        and provenance.verification = 'unpublished'

)

select
    accelerator_rows.accelerator_id,
    accelerator_rows.peak_training_dense_tflops,
    accelerator_rows.memory_gb,
    accelerator_rows.memory_bw_tbps
from accelerator_rows
where (
        accelerator_rows.peak_training_dense_tflops is null
        and accelerator_rows.accelerator_id not in (
            select no_16_bit.accelerator_id from no_16_bit
        )
    )
    or accelerator_rows.memory_gb is null
    or accelerator_rows.memory_bw_tbps is null
