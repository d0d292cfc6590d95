-- one row per weak spec cell of the curated catalog and reason: a filled numeric cell of
-- catalog/accelerators.csv whose figure was not read in the vendor's own text (its provenance
-- in catalog/accelerator_spec_sources.csv is 'secondary' or 'derived', or missing), or one that
-- a scraped spec source (rocm, mlperf, epoch, wikipedia, techpowerup) contradicts by more than
-- 2% (a spec_conflicts row whose reference is the curated cell).
--
-- How to read it: a 'secondary' cell is the next one to check against a vendor document; a
-- 'derived' cell is as good as its rule (note) and the vendor figure it starts from; a
-- 'scraped_disagrees' row on a 'vendor' cell is usually the scraped source's error (see
-- diagnosis: sparse figure, per-board value, another variant...), on a weaker cell it is a
-- reason to look again. Empty cells ('unpublished') are not listed: see spec_provenance.
--
-- columns:
--   metric: the accelerators column of the cell (memory_gb ... vendor_bf16_sparse_tflops)
--   weakness: 'secondary' or 'derived' (the cell's verification), 'no_provenance' (no record:
--     the check accelerator_spec_provenance blocks publishing then) or 'scraped_disagrees'
--   value [unit of metric]: the catalog cell's value
--   verification: the cell's verification level (vendor, secondary, derived); null without a
--     record
--   source_url: where the cell's figure comes from (its provenance record)
--   document: the document the cell's figure is read from
--   note: the provenance note (rule of a derived figure, caveats)
--   scraped_source: for 'scraped_disagrees', the spec source that states another value; null
--     otherwise
--   scraped_value [unit of metric]: that source's value; null otherwise
--   pct_diff [%]: (scraped_value / value - 1) x 100, rounded to 2 decimals; null otherwise
--   diagnosis: the likely cause of the disagreement (spec_conflicts.diagnosis); null otherwise

with

cells as (

    select * from int_accelerator_spec_cells

),

conflicts as (

    select * from spec_conflicts

),

filled_cells as (

    select *
    from cells
    where cells.metric_kind = 'numeric'
        and cells.cell_value is not null

),

not_vendor as (

    select
        filled_cells.accelerator_id,
        filled_cells.metric,
        coalesce(filled_cells.verification, 'no_provenance') as weakness,
        filled_cells.cell_value as value,
        filled_cells.verification,
        filled_cells.source_url,
        filled_cells.document,
        filled_cells.note,
        cast(null as varchar) as scraped_source,
        cast(null as double) as scraped_value,
        cast(null as double) as pct_diff,
        cast(null as varchar) as diagnosis
    from filled_cells
    where filled_cells.verification is null
        or filled_cells.verification in ('secondary', 'derived')

),

scraped_disagreements as (

    select
        filled_cells.accelerator_id,
        filled_cells.metric,
        'scraped_disagrees' as weakness,
        filled_cells.cell_value as value,
        filled_cells.verification,
        filled_cells.source_url,
        filled_cells.document,
        filled_cells.note,
        conflicts.source as scraped_source,
        conflicts.value as scraped_value,
        round(100 * (conflicts.value / filled_cells.cell_value - 1), 2) as pct_diff,
        conflicts.diagnosis
    from conflicts
    inner join filled_cells using (accelerator_id, metric)
    where conflicts.reference_source = 'curated'

),

final as (

    select * from not_vendor
    union all
    select * from scraped_disagreements

)

select * from final
order by final.accelerator_id, final.metric, final.weakness, final.scraped_source
