-- one row per accelerator: the wide spec table (dense peak throughput per precision, memory,
-- bandwidth, power, die area), the purchase price estimate with its basis, date and source,
-- and where the specs come from (spec_source).
--
-- columns:
--   vendor: chip vendor (NVIDIA, AMD, Google, Intel, AWS, ...)
--   family: architecture / product family (Ampere, Hopper, Blackwell, CDNA 3, TPU v5, ...)
--   name: the vendor's product name
--   form_factor: SXM4, SXM5, PCIe, OAM, TPU board, ...
--   launch_date: announcement or launch date
--   memory_type: memory technology (HBM2e, HBM3, GDDR6, ...)
--   interconnect_link: the GPU-to-GPU link behind interconnect_bw_gbps (NVLink 4, ...)
--   vendor_bf16_sparse_tflops [TFLOP/s]: the vendor's printed 2:4-sparse BF16 figure, kept only
--     to check that the dense figure is half of it (never used in costs)
--   purchase_price_basis: what the purchase price estimate is (list price, analyst estimate ...)
--   purchase_price_date: when the purchase price estimate was true
--   purchase_price_source_url: where the purchase price estimate comes from
--   source_url: where the spec figures come from (datasheet, vendor page)
--   notes: curation notes (variants, caveats, sparse figures seen on the datasheet)
--   spec_source: where the row's specs come from ('curated': catalog/accelerators.csv)

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
