-- one row per accelerator: the wide spec table (dense peak throughput per precision, memory,
-- bandwidth, power, die area), the purchase price estimate with its basis, date and source,
-- and where the specs come from (spec_source).

with

curated_accelerators as (

    select * from stg_curated__accelerators

),

final as (

    select
        ---------- ids and descriptors
        curated_accelerators.accelerator_id,
        curated_accelerators.vendor,
        curated_accelerators.family,
        curated_accelerators.name,
        curated_accelerators.form_factor,
        curated_accelerators.launch_date,

        ---------- memory and interconnect
        curated_accelerators.memory_gb,
        curated_accelerators.memory_type,
        curated_accelerators.memory_bw_tbps,
        curated_accelerators.interconnect_bw_gbps,
        curated_accelerators.interconnect_link,

        ---------- power and silicon
        curated_accelerators.tdp_w,
        curated_accelerators.die_area_mm2,

        ---------- dense peak throughput
        curated_accelerators.peak_fp64_dense_tflops,
        curated_accelerators.peak_fp64_matrix_dense_tflops,
        curated_accelerators.peak_fp32_dense_tflops,
        curated_accelerators.peak_tf32_dense_tflops,
        curated_accelerators.peak_bf16_dense_tflops,
        curated_accelerators.peak_fp16_dense_tflops,
        curated_accelerators.peak_fp8_dense_tflops,
        curated_accelerators.peak_int8_dense_tflops,
        curated_accelerators.peak_fp4_dense_tflops,
        curated_accelerators.vendor_bf16_sparse_tflops,

        ---------- purchase price estimate
        curated_accelerators.purchase_price_usd,
        curated_accelerators.purchase_price_basis,
        curated_accelerators.purchase_price_date,
        curated_accelerators.purchase_price_source_url,

        ---------- provenance
        curated_accelerators.source_url,
        curated_accelerators.notes,
        'curated' as spec_source

    from curated_accelerators

)

select * from final
order by final.accelerator_id
