-- one row per accelerator in the curated catalog (catalog/accelerators.csv), typed.
-- renames/casts only: empty strings become null, figures become double, dates become date.

with

source as (

    select * from curated.accelerators

),

renamed as (

    select
        ---------- ids
        nullif(trim(source.accelerator_id), '') as accelerator_id,

        ---------- descriptors
        nullif(trim(source.vendor), '') as vendor,
        nullif(trim(source.family), '') as family,
        nullif(trim(source.name), '') as name,
        nullif(trim(source.form_factor), '') as form_factor,
        cast(nullif(trim(source.launch_date), '') as date) as launch_date,
        cast(nullif(trim(source.announce_date), '') as date) as announce_date,

        ---------- memory and interconnect
        cast(nullif(trim(source.memory_gb), '') as double) as memory_gb,
        nullif(trim(source.memory_type), '') as memory_type,
        cast(nullif(trim(source.memory_bw_tbps), '') as double) as memory_bw_tbps,
        cast(nullif(trim(source.interconnect_bw_gbps), '') as double) as interconnect_bw_gbps,
        nullif(trim(source.interconnect_link), '') as interconnect_link,

        ---------- power and silicon
        cast(nullif(trim(source.tdp_w), '') as double) as tdp_w,
        cast(nullif(trim(source.die_area_mm2), '') as double) as die_area_mm2,

        ---------- dense peak throughput (TFLOP/s, TOP/s for int8)
        cast(nullif(trim(source.peak_fp64_dense_tflops), '') as double)
            as peak_fp64_dense_tflops,
        cast(nullif(trim(source.peak_fp64_matrix_dense_tflops), '') as double)
            as peak_fp64_matrix_dense_tflops,
        cast(nullif(trim(source.peak_fp32_dense_tflops), '') as double)
            as peak_fp32_dense_tflops,
        cast(nullif(trim(source.peak_tf32_dense_tflops), '') as double)
            as peak_tf32_dense_tflops,
        cast(nullif(trim(source.peak_bf16_dense_tflops), '') as double)
            as peak_bf16_dense_tflops,
        cast(nullif(trim(source.peak_fp16_dense_tflops), '') as double)
            as peak_fp16_dense_tflops,
        cast(nullif(trim(source.peak_fp8_dense_tflops), '') as double)
            as peak_fp8_dense_tflops,
        cast(nullif(trim(source.peak_int8_dense_tflops), '') as double)
            as peak_int8_dense_tflops,
        cast(nullif(trim(source.peak_fp4_dense_tflops), '') as double)
            as peak_fp4_dense_tflops,

        ---------- the vendor's 2:4-sparse figure, kept only to check the dense one
        cast(nullif(trim(source.vendor_bf16_sparse_tflops), '') as double)
            as vendor_bf16_sparse_tflops,

        ---------- purchase price estimate
        cast(nullif(trim(source.purchase_price_usd), '') as double) as purchase_price_usd,
        nullif(trim(source.purchase_price_basis), '') as purchase_price_basis,
        cast(nullif(trim(source.purchase_price_date), '') as date) as purchase_price_date,
        nullif(trim(source.purchase_price_source_url), '') as purchase_price_source_url,

        ---------- provenance
        nullif(trim(source.source_url), '') as source_url,
        nullif(trim(source.notes), '') as notes

    from source

)

select * from renamed
