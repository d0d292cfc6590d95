-- one row per catalogued accelerator x metric x source: every value a source states for a
-- metric of the `accelerators` mart, with the source's rank, whether it is the value the mart
-- shows (is_chosen), and how far it is from the best-ranked source's value.
-- metric is a column name of `accelerators` (memory_gb, peak_bf16_dense_tflops, ...), value
-- in the unit that name carries; accelerator_names_raw lists the source's spellings.

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
