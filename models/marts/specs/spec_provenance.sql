-- one row per catalogued accelerator x spec column of catalog/accelerators.csv (the 15 numeric
-- columns and the two dates): the cell's value and where it comes from, from the per-cell
-- provenance in catalog/accelerator_spec_sources.csv. The check accelerator_spec_provenance
-- keeps every filled numeric cell covered and each record equal to its cell.
--
-- verification levels: 'vendor' (read in the vendor's own text: datasheet, whitepaper,
-- product page, vendor docs), 'secondary' (Epoch, TechPowerUp, Wikipedia, press...), 'derived'
-- (by the rule in the note from vendor figures, e.g. dense = printed sparse / 2),
-- 'unpublished' (the cell is empty: the part lacks the format or no figure is published).
--
-- columns:
--   metric: the accelerators column of the cell (memory_gb ... vendor_bf16_sparse_tflops,
--     launch_date, announce_date)
--   metric_kind: 'numeric' or 'date'
--   value [unit of metric]: the numeric cell's value, in the unit its column name carries; null
--     for an empty cell or a date
--   date_value: the date cell's value (launch_date, announce_date); null otherwise
--   verification: vendor, secondary, derived or unpublished; null when the cell has no
--     provenance record (an empty cell, or a date not yet sourced)
--   source_url: the page or PDF the figure is read from (for a derived figure: the vendor
--     document of the figure it is derived from)
--   document: the document's short name, with page or table where useful
--   note: the rule of a derived figure, caveats, and the previous value when it was corrected
--     ('catalog had X')

with

cells as (

    select * from int_accelerator_spec_cells

),

final as (

    select
        cells.accelerator_id,
        cells.metric,
        cells.metric_kind,
        cells.cell_value as value,
        cells.cell_date as date_value,
        cells.verification,
        cells.source_url,
        cells.document,
        cells.note
    from cells

)

select * from final
order by final.accelerator_id, final.metric_kind desc, final.metric
