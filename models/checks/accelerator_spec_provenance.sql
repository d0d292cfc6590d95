-- guards: every filled spec cell of catalog/accelerators.csv has its provenance, and the
-- provenance (catalog/accelerator_spec_sources.csv) is well-formed and agrees with the cell.
-- one row per accelerator x metric x problem:
-- * no_provenance_row: a filled numeric cell without a provenance record;
-- * value_differs: the provenance value is not the cell's (the provenance value is the truth:
--   correct the cell, or the record); a date record must match its date cell too;
-- * duplicate_provenance_row: two records for one cell;
-- * unknown_cell: a record for an accelerator or a column the catalog does not have;
-- * bad_verification: verification not one of vendor, secondary, derived, unpublished;
-- * verification_contradicts_value: 'unpublished' with a value, or another level without one;
-- * missing_source_url: a vendor, secondary or derived record without its source_url;
-- * derived_without_rule: a derived record whose note states no rule ('dense = sparse 1979 / 2');
-- * unparseable_value: a value that is neither a number nor a date.
-- An accelerator_id listed twice in accelerators.csv is left to accelerator_ids_unique (its
-- cells are ambiguous).

with

duplicated_ids as (

    select curated_accelerators.accelerator_id
    from stg_curated__accelerators as curated_accelerators
    group by curated_accelerators.accelerator_id
    having count(*) > 1

),

cells as (

    select *
    from int_accelerator_spec_cells
    where int_accelerator_spec_cells.accelerator_id not in (
        select duplicated_ids.accelerator_id from duplicated_ids
    )

),

spec_sources as (

    select * from stg_curated__accelerator_spec_sources

),

known_cells as (

    select distinct all_cells.accelerator_id, all_cells.metric
    from int_accelerator_spec_cells as all_cells

),

problems as (

    select
        cells.accelerator_id,
        cells.metric,
        'no_provenance_row' as problem,
        cast(cells.cell_value as varchar) as detail
    from cells
    where cells.metric_kind = 'numeric'
        and cells.cell_value is not null
        and not cells.has_provenance

    union all

    select
        cells.accelerator_id,
        cells.metric,
        'value_differs' as problem,
        'cell ' || coalesce(cast(cells.cell_value as varchar), cast(cells.cell_date as varchar),
            'empty')
        || ', provenance ' || coalesce(cells.provenance_value_text, 'empty') as detail
    from cells
    where cells.has_provenance
        and not cells.value_matches

    union all

    select
        spec_sources.accelerator_id,
        spec_sources.metric,
        'duplicate_provenance_row' as problem,
        cast(count(*) as varchar) || ' records' as detail
    from spec_sources
    group by spec_sources.accelerator_id, spec_sources.metric
    having count(*) > 1

    union all

    select
        spec_sources.accelerator_id,
        spec_sources.metric,
        'unknown_cell' as problem,
        'no such accelerator or column in catalog/accelerators.csv' as detail
    from spec_sources
    left join known_cells using (accelerator_id, metric)
    where known_cells.metric is null

    union all

    select
        spec_sources.accelerator_id,
        spec_sources.metric,
        'bad_verification' as problem,
        coalesce(spec_sources.verification, 'empty') as detail
    from spec_sources
    where spec_sources.verification is null
        or spec_sources.verification not in ('vendor', 'secondary', 'derived', 'unpublished')

    union all

    select
        spec_sources.accelerator_id,
        spec_sources.metric,
        'verification_contradicts_value' as problem,
        spec_sources.verification || ' with value ' || coalesce(spec_sources.value_text, 'empty')
            as detail
    from spec_sources
    where (spec_sources.verification = 'unpublished' and spec_sources.value_text is not null)
        or (spec_sources.verification in ('vendor', 'secondary', 'derived')
            and spec_sources.value_text is null)

    union all

    select
        spec_sources.accelerator_id,
        spec_sources.metric,
        'missing_source_url' as problem,
        spec_sources.verification as detail
    from spec_sources
    where spec_sources.verification in ('vendor', 'secondary', 'derived')
        and spec_sources.source_url is null

    union all

    select
        spec_sources.accelerator_id,
        spec_sources.metric,
        'derived_without_rule' as problem,
        coalesce(spec_sources.note, 'no note') as detail
    from spec_sources
    where spec_sources.verification = 'derived'
        and coalesce(spec_sources.note, '') not like '%=%'

    union all

    select
        spec_sources.accelerator_id,
        spec_sources.metric,
        'unparseable_value' as problem,
        spec_sources.value_text as detail
    from spec_sources
    where spec_sources.value_text is not null
        and spec_sources.value is null
        and spec_sources.value_date is null

)

select * from problems
order by problems.accelerator_id, problems.metric, problems.problem
