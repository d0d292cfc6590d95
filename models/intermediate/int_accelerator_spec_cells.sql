-- one row per catalogued accelerator x spec column of catalog/accelerators.csv (the 15 numeric
-- columns and the two dates), filled or empty, with the cell's value and its provenance record
-- (catalog/accelerator_spec_sources.csv) when there is one.
--
-- * metric_kind: 'numeric' (memory_gb ... vendor_bf16_sparse_tflops) or 'date' (launch_date,
--   announce_date);
-- * value_matches: the provenance value equals the cell (both empty counts as equal; numbers
--   compared to 1e-9 relative, dates exactly); null without a provenance record;
-- * a duplicated provenance record yields two rows here (the check
--   accelerator_spec_provenance flags it).

with

curated_accelerators as (

    select * from stg_curated__accelerators

),

spec_sources as (

    select * from stg_curated__accelerator_spec_sources

),

numeric_cells as (

    select *
    from (
        select
            curated_accelerators.accelerator_id,
            curated_accelerators.memory_gb,
            curated_accelerators.memory_bw_tbps,
            curated_accelerators.interconnect_bw_gbps,
            curated_accelerators.tdp_w,
            curated_accelerators.die_area_mm2,
            curated_accelerators.peak_fp64_dense_tflops,
            curated_accelerators.peak_fp64_matrix_dense_tflops,
            curated_accelerators.peak_fp32_dense_tflops,
            curated_accelerators.peak_tf32_dense_tflops,
            curated_accelerators.peak_bf16_dense_tflops,
            curated_accelerators.peak_fp16_dense_tflops,
            curated_accelerators.peak_fp8_dense_tflops,
            curated_accelerators.peak_int8_dense_tflops,
            curated_accelerators.peak_fp4_dense_tflops,
            curated_accelerators.vendor_bf16_sparse_tflops
        from curated_accelerators
    ) unpivot include nulls (
        cell_value for metric in (
            memory_gb, memory_bw_tbps, interconnect_bw_gbps, tdp_w, die_area_mm2,
            peak_fp64_dense_tflops, peak_fp64_matrix_dense_tflops, peak_fp32_dense_tflops,
            peak_tf32_dense_tflops, peak_bf16_dense_tflops, peak_fp16_dense_tflops,
            peak_fp8_dense_tflops, peak_int8_dense_tflops, peak_fp4_dense_tflops,
            vendor_bf16_sparse_tflops
        )
    )

),

date_cells as (

    select *
    from (
        select
            curated_accelerators.accelerator_id,
            curated_accelerators.launch_date,
            curated_accelerators.announce_date
        from curated_accelerators
    ) unpivot include nulls (cell_date for metric in (launch_date, announce_date))

),

cells as (

    select
        numeric_cells.accelerator_id,
        numeric_cells.metric,
        'numeric' as metric_kind,
        numeric_cells.cell_value,
        cast(null as date) as cell_date
    from numeric_cells

    union all

    select
        date_cells.accelerator_id,
        date_cells.metric,
        'date' as metric_kind,
        cast(null as double) as cell_value,
        date_cells.cell_date
    from date_cells

),

joined as (

    select
        cells.accelerator_id,
        cells.metric,
        cells.metric_kind,
        cells.cell_value,
        cells.cell_date,
        spec_sources.metric is not null as has_provenance,
        spec_sources.value_text as provenance_value_text,
        spec_sources.value as provenance_value,
        spec_sources.value_date as provenance_date,
        spec_sources.verification,
        spec_sources.source_url,
        spec_sources.document,
        spec_sources.note,
        case
            when spec_sources.metric is null then null
            when cells.metric_kind = 'numeric' and cells.cell_value is null
                then spec_sources.value_text is null
            when cells.metric_kind = 'numeric'
                then coalesce(
                    abs(spec_sources.value - cells.cell_value)
                    <= 1e-9 * greatest(abs(cells.cell_value), 1),
                    false)
            when cells.cell_date is null then spec_sources.value_text is null
            else coalesce(spec_sources.value_date = cells.cell_date, false)
        end as value_matches
    from cells
    left join spec_sources using (accelerator_id, metric)

)

select * from joined
