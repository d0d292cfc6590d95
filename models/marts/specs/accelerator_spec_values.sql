-- one row per catalogued accelerator x metric x source: every value a source states for a
-- metric of the `accelerators` mart, with the source's rank, whether it is the value the mart
-- shows (is_chosen), and how far it is from the best-ranked source's value.
-- metric is a column name of `accelerators` (memory_gb, peak_bf16_dense_tflops, ...), value
-- in the unit that name carries; accelerator_names_raw lists the source's spellings.
--
-- columns:
--   metric: the accelerators column the value is for (memory_gb, memory_bw_tbps,
--     interconnect_bw_gbps, tdp_w, die_area_mm2, peak_<precision>_dense_tflops)
--   source: the spec source stating the value: 'curated' (catalog/accelerators.csv), rocm, mlperf,
--     epoch, wikipedia or techpowerup
--   source_rank: the source's precedence rank (1 = curated, best; 99 = a source without a rank)
--   value [unit of metric]: the value the source states, in the unit the metric name carries; when
--     its spellings state several, the one most often stated (then that of its most specific
--     spelling, then the larger)
--   is_chosen: this is the value the accelerators mart shows (the best-ranked source allowed to
--     fill the metric)
--   may_fill: the source may supply this metric to the accelerators mart (curated and rocm any
--     metric; the others memory_gb, memory_bw_tbps and tdp_w only)
--   reference_source: the best-ranked source stating the metric for this accelerator
--   reference_value [unit of metric]: the reference source's value
--   pct_diff_from_reference [%]: (value / reference_value - 1) x 100, rounded to 2 decimals
--   differs_from_reference: the value is not the reference source's and differs from it by more
--     than 2% (a row of spec_conflicts)
--   n_observations [observations]: the source's observations behind the value (1 for curated)
--   n_distinct_values [values]: distinct values the source states for the metric (> 1: it disagrees
--     with itself)
--   accelerator_names_raw: the source's spellings of the accelerator, '; '-separated (the
--     accelerator_id for curated)
--   observed_at [timestamp (UTC)]: newest observation of the value by the source; null for curated

with

spec_values as (

    select * from int_spec_values

),

final as (

    select
        spec_values.accelerator_id,
        spec_values.metric,
        spec_values.source,
        spec_values.source_rank,
        spec_values.value,
        spec_values.is_chosen,
        spec_values.may_fill,
        spec_values.reference_source,
        spec_values.reference_value,
        round(100 * (spec_values.value / spec_values.reference_value - 1), 2)
            as pct_diff_from_reference,
        spec_values.differs_from_reference,
        spec_values.n_observations,
        spec_values.n_distinct_values,
        spec_values.accelerator_names_raw,
        spec_values.observed_at
    from spec_values

)

select * from final
order by final.accelerator_id, final.metric, final.source_rank, final.source
