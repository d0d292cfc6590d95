-- guards: dense peak figures are dense, not the vendor's 2:4-sparse ones.
-- one row per accelerator x broken rule:
-- * bf16 dense differs by more than 2% from half the vendor's bf16 sparse figure (NVIDIA
--   prints some dense/sparse pairs at different clocks, e.g. L40S 362.05 vs 733);
-- * bf16 and fp16 dense both set and differ by more than 1%;
-- * NVIDIA only: tf32 dense above 0.55 x bf16 dense (tensor-core tf32 is half of bf16;
--   AWS Neuron cores run tf32 at the bf16 rate);
-- * fp8 dense above 2.05 x bf16 dense;
-- * int8 dense above 2.05 x the larger of fp8 and bf16 dense (4.1 x on consumer GeForce
--   parts, whose catalogued bf16 is the FP32-accumulate rate, a quarter of int8).
-- Derived cells (catalog/accelerator_spec_sources.csv, verification 'derived'), whose note
-- states the rule as "dense = sparse <printed figure> / 2" (TFLOP/s, the vendor's rounding):
-- * the dense value differs by more than 1% from half the sparse figure it cites (B200 TF32:
--   the table prints 2.2 PF sparse, so 1100, not 2.25 / 2 = 1125);
-- * a derived bf16 cell cites a sparse figure more than 1% from vendor_bf16_sparse_tflops.

with

accelerator_specs as (

    select * from stg_curated__accelerators

),

derived_dense as (

    select
        spec_sources.accelerator_id,
        spec_sources.metric,
        spec_sources.value,
        try_cast(replace(regexp_extract(spec_sources.note,
            'sparse[^0-9/=]*([0-9][0-9,]*(\.[0-9]+)?)\s*/\s*2', 1), ',', '') as double)
            as cited_sparse
    from stg_curated__accelerator_spec_sources as spec_sources
    where spec_sources.verification = 'derived'
        and spec_sources.metric like 'peak\_%\_dense\_tflops' escape '\'
        and spec_sources.value is not null

),

violations as (

    select
        accelerator_specs.accelerator_id,
        'bf16_dense_not_half_of_sparse' as rule,
        accelerator_specs.peak_bf16_dense_tflops as value,
        accelerator_specs.vendor_bf16_sparse_tflops / 2 as expected
    from accelerator_specs
    where accelerator_specs.vendor_bf16_sparse_tflops is not null
        and (
            accelerator_specs.peak_bf16_dense_tflops is null
            or abs(
                accelerator_specs.peak_bf16_dense_tflops
                - accelerator_specs.vendor_bf16_sparse_tflops / 2
            ) > 0.02 * accelerator_specs.vendor_bf16_sparse_tflops / 2
        )

    union all

    select
        accelerator_specs.accelerator_id,
        'fp16_dense_differs_from_bf16' as rule,
        accelerator_specs.peak_fp16_dense_tflops as value,
        accelerator_specs.peak_bf16_dense_tflops as expected
    from accelerator_specs
    where abs(accelerator_specs.peak_fp16_dense_tflops - accelerator_specs.peak_bf16_dense_tflops)
        > 0.01 * accelerator_specs.peak_bf16_dense_tflops

    union all

    select
        accelerator_specs.accelerator_id,
        'tf32_dense_above_half_bf16' as rule,
        accelerator_specs.peak_tf32_dense_tflops as value,
        accelerator_specs.peak_bf16_dense_tflops / 2 as expected
    from accelerator_specs
    where accelerator_specs.vendor = 'NVIDIA'
        and accelerator_specs.peak_tf32_dense_tflops
        > 0.55 * accelerator_specs.peak_bf16_dense_tflops

    union all

    select
        accelerator_specs.accelerator_id,
        'fp8_dense_above_2x_bf16' as rule,
        accelerator_specs.peak_fp8_dense_tflops as value,
        accelerator_specs.peak_bf16_dense_tflops * 2 as expected
    from accelerator_specs
    where accelerator_specs.peak_fp8_dense_tflops
        > 2.05 * accelerator_specs.peak_bf16_dense_tflops

    union all

    select
        accelerator_specs.accelerator_id,
        'int8_dense_above_2x_fp8_or_bf16' as rule,
        accelerator_specs.peak_int8_dense_tflops as value,
        greatest(
            accelerator_specs.peak_fp8_dense_tflops, accelerator_specs.peak_bf16_dense_tflops
        ) * 2 as expected
    from accelerator_specs
    where accelerator_specs.peak_int8_dense_tflops
        > (case when accelerator_specs.form_factor ilike '%consumer%' then 4.1 else 2.05 end)
        * greatest(
            accelerator_specs.peak_fp8_dense_tflops, accelerator_specs.peak_bf16_dense_tflops
        )

    union all

    select
        derived_dense.accelerator_id,
        'derived_dense_not_half_of_cited_sparse:' || derived_dense.metric as rule,
        derived_dense.value,
        derived_dense.cited_sparse / 2 as expected
    from derived_dense
    where derived_dense.cited_sparse is not null
        and abs(derived_dense.value - derived_dense.cited_sparse / 2)
        > 0.01 * derived_dense.cited_sparse / 2

    union all

    select
        derived_dense.accelerator_id,
        'derived_bf16_cites_another_sparse_figure' as rule,
        derived_dense.cited_sparse as value,
        accelerator_specs.vendor_bf16_sparse_tflops as expected
    from derived_dense
    inner join accelerator_specs using (accelerator_id)
    where derived_dense.metric = 'peak_bf16_dense_tflops'
        and derived_dense.cited_sparse is not null
        and accelerator_specs.vendor_bf16_sparse_tflops is not null
        and abs(derived_dense.cited_sparse - accelerator_specs.vendor_bf16_sparse_tflops)
        > 0.01 * accelerator_specs.vendor_bf16_sparse_tflops

)

select * from violations
order by violations.accelerator_id, violations.rule
