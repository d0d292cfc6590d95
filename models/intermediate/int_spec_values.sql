-- one row per accelerator x metric x source: the value that source states for a catalogued
-- accelerator (the curated catalog is the source 'curated'), with the source's rank and which
-- value wins.
--
-- * metrics: the columns of the `accelerators` mart (memory_gb, memory_bw_tbps,
--   interconnect_bw_gbps, tdp_w, die_area_mm2 and the nine peak_<precision>_dense_tflops);
-- * a source that states several values for one accelerator (several of its spellings map to
--   it, or several MLPerf systems) is represented by the value most of its observations
--   state, then the one of its longest (most specific) spelling, then the larger value;
--   n_distinct_values says when it disagreed with itself;
-- * the reference value is the one of the best-ranked source stating the metric; the chosen
--   value (what the `accelerators` mart shows) is the one of the best-ranked source allowed
--   to fill that metric (int_spec_source_precedence);
-- * differs_from_reference: the value differs from the reference value by more than 2% of
--   the reference (the tolerance of spec_conflicts; vendor rounding such as 989.4 vs 989.5
--   stays well inside it).

with

curated_accelerators as (

    select * from stg_curated__accelerators

),

observations as (

    select * from int_spec_observations

),

precedence as (

    select * from int_spec_source_precedence

),

curated_long as (

    -- the catalog's own filled numeric cells, unpivoted once in int_accelerator_spec_cells
    -- (distinct: a duplicated provenance record repeats a cell there)
    select distinct
        spec_cells.accelerator_id,
        spec_cells.metric,
        spec_cells.cell_value as value
    from int_accelerator_spec_cells as spec_cells
    where spec_cells.metric_kind = 'numeric'
        and spec_cells.metric <> 'vendor_bf16_sparse_tflops'
        and spec_cells.cell_value is not null

),

tracked_metrics as (

    select unnest([
        'memory_gb', 'memory_bw_tbps', 'interconnect_bw_gbps', 'tdp_w', 'die_area_mm2',
        'peak_fp64_dense_tflops', 'peak_fp64_matrix_dense_tflops', 'peak_fp32_dense_tflops',
        'peak_tf32_dense_tflops', 'peak_bf16_dense_tflops', 'peak_fp16_dense_tflops',
        'peak_fp8_dense_tflops', 'peak_int8_dense_tflops', 'peak_fp4_dense_tflops'
    ]) as metric

),

curated_values as (

    select
        curated_long.accelerator_id,
        curated_long.metric,
        'curated' as source,
        curated_long.value,
        1 as n_observations,
        1 as n_distinct_values,
        curated_long.accelerator_id as accelerator_names_raw,
        cast(null as timestamptz) as observed_at
    from curated_long
    where curated_long.value is not null

),

scraped as (

    select observations.*
    from observations
    inner join curated_accelerators using (accelerator_id)
    inner join tracked_metrics
        on tracked_metrics.metric = observations.metric
    where observations.value > 0

),

scraped_by_value as (

    select
        scraped.accelerator_id,
        scraped.metric,
        scraped.source,
        scraped.value,
        count(*) as n_same,
        max(length(scraped.accelerator_name_raw)) as longest_spelling
    from scraped
    group by scraped.accelerator_id, scraped.metric, scraped.source, scraped.value

),

scraped_representative as (

    select * from scraped_by_value
    qualify row_number() over (
        partition by scraped_by_value.accelerator_id, scraped_by_value.metric,
            scraped_by_value.source
        order by
            scraped_by_value.n_same desc,
            scraped_by_value.longest_spelling desc,
            scraped_by_value.value desc
    ) = 1

),

scraped_summary as (

    select
        scraped.accelerator_id,
        scraped.metric,
        scraped.source,
        count(*) as n_observations,
        count(distinct scraped.value) as n_distinct_values,
        string_agg(distinct scraped.accelerator_name_raw, '; '
            order by scraped.accelerator_name_raw) as accelerator_names_raw,
        max(scraped.observed_at) as observed_at
    from scraped
    group by scraped.accelerator_id, scraped.metric, scraped.source

),

scraped_values as (

    select
        scraped_summary.accelerator_id,
        scraped_summary.metric,
        scraped_summary.source,
        scraped_representative.value,
        scraped_summary.n_observations,
        scraped_summary.n_distinct_values,
        scraped_summary.accelerator_names_raw,
        scraped_summary.observed_at
    from scraped_summary
    inner join scraped_representative using (accelerator_id, metric, source)

),

all_values as (

    select * from curated_values
    union all by name
    select * from scraped_values

),

ranked as (

    select
        all_values.*,
        coalesce(precedence.source_rank, 99) as source_rank,
        coalesce(
            precedence.fills = 'all'
            or (
                precedence.fills = 'descriptive'
                and all_values.metric in ('memory_gb', 'memory_bw_tbps', 'tdp_w')
            ),
            false
        ) as may_fill
    from all_values
    left join precedence using (source)

),

reference_values as (

    select
        ranked.accelerator_id,
        ranked.metric,
        ranked.source as reference_source,
        ranked.value as reference_value
    from ranked
    qualify row_number() over (
        partition by ranked.accelerator_id, ranked.metric
        order by ranked.source_rank, ranked.source
    ) = 1

),

chosen_values as (

    select
        ranked.accelerator_id,
        ranked.metric,
        ranked.source as chosen_source,
        ranked.value as chosen_value
    from ranked
    where ranked.may_fill
    qualify row_number() over (
        partition by ranked.accelerator_id, ranked.metric
        order by ranked.source_rank, ranked.source
    ) = 1

),

final as (

    select
        ---------- ids
        ranked.accelerator_id,
        ranked.metric,
        ranked.source,
        ranked.source_rank,

        ---------- what the source states
        ranked.value,
        ranked.n_observations,
        ranked.n_distinct_values,
        ranked.accelerator_names_raw,

        ---------- reconciliation
        ranked.may_fill,
        reference_values.reference_source,
        reference_values.reference_value,
        ranked.source = reference_values.reference_source as is_reference,
        chosen_values.chosen_source,
        chosen_values.chosen_value,
        coalesce(ranked.source = chosen_values.chosen_source, false) as is_chosen,
        ranked.source <> reference_values.reference_source
            and abs(ranked.value / reference_values.reference_value - 1) > 0.02 + 1e-9
            as differs_from_reference,

        ---------- timestamps
        ranked.observed_at

    from ranked
    inner join reference_values using (accelerator_id, metric)
    left join chosen_values using (accelerator_id, metric)

)

select * from final
