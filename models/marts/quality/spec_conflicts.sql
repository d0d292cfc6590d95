-- one row per catalogued accelerator x metric x source whose value differs by more than 2%
-- from the best-ranked source's value (the reference: the curated vendor figure when the
-- catalog has one), with every source's value side by side and a diagnosis where one fits.
--
-- ratio = value / reference_value; "about k x" means within 2% of k. Diagnoses, first match:
-- * 'likely FP16-accumulate rate ...': a tensor fp16/bf16/fp8 figure about 2x the reference on
--   a consumer GeForce part (they run FP32-accumulate, the catalogued figure, at half rate);
-- * 'likely 2:4-sparse ...': any other tensor figure about 2x the reference;
-- * 'likely a different memory variant ...' / 'likely a different variant ...': a memory,
--   bandwidth or TDP value that is (within 2%) the reference value of a sibling part (same
--   vendor and family; the closest id by edit distance when several match), e.g. Epoch's
--   A100 PCIe 1.94 TB/s is the 80 GB card's, TechPowerUp's L40S 300 W is the L40's;
-- * 'likely per-system or per-board ...': about n times the reference, n a power of two or
--   72 (boards, nodes, NVL72 racks); for a throughput figure only from n = 4 (a 2x vector
--   rate is more often another FP64:FP32 ratio than a two-chip board);
-- * 'likely per-die ...': memory or bandwidth about half the reference (one die of two);
-- * 'likely one direction ...': interconnect bandwidth about half the reference (the catalog
--   keeps the bidirectional total per chip).
-- A diagnosis always describes the disagreeing (non-reference) value: the reference, e.g. a
-- curated dense figure, is never called sparse.
--
-- columns:
--   metric: the accelerators column in question (memory_gb, peak_bf16_dense_tflops, ...)
--   source: the spec source whose value disagrees (rocm, mlperf, epoch, wikipedia or techpowerup)
--   value [unit of metric]: that source's value, in the unit the metric name carries
--   reference_source: the best-ranked source stating the metric ('curated' when the catalog has the
--     figure)
--   reference_value [unit of metric]: the reference source's value
--   ratio [ratio]: value / reference_value, rounded to 4 decimals
--   pct_diff [%]: (ratio - 1) x 100, rounded to 2 decimals
--   diagnosis: the likely cause where one fits (FP16-accumulate rate, 2:4-sparse, another variant's
--     value, per-system or per-board, per-die, one direction of the link); null otherwise
--   all_values: every source's value for the metric, 'source=value', '; '-separated, best-ranked
--     first
--   accelerator_names_raw: the disagreeing source's spellings of the accelerator, '; '-separated
--   n_distinct_values [values]: distinct values that source states for the metric
--   observed_at [timestamp (UTC)]: newest observation of the value by that source

with

spec_values as (

    select * from int_spec_values

),

accelerator_specs as (

    select * from stg_curated__accelerators

),

value_lists as (

    select
        spec_values.accelerator_id,
        spec_values.metric,
        string_agg(spec_values.source || '=' || spec_values.value, '; '
            order by spec_values.source_rank, spec_values.source) as all_values
    from spec_values
    group by spec_values.accelerator_id, spec_values.metric

),

disagreements as (

    select
        spec_values.*,
        spec_values.value / spec_values.reference_value as ratio,
        spec_values.metric in (
            'peak_tf32_dense_tflops', 'peak_bf16_dense_tflops', 'peak_fp16_dense_tflops',
            'peak_fp8_dense_tflops', 'peak_int8_dense_tflops', 'peak_fp4_dense_tflops'
        ) as is_tensor_metric
    from spec_values
    where spec_values.differs_from_reference

),

sibling_matches as (

    select
        disagreements.accelerator_id,
        disagreements.metric,
        disagreements.source,
        arg_min(
            sibling_values.accelerator_id,
            levenshtein(sibling_values.accelerator_id, disagreements.accelerator_id)
        ) as sibling_id
    from disagreements
    inner join accelerator_specs using (accelerator_id)
    inner join accelerator_specs as siblings
        on siblings.vendor = accelerator_specs.vendor
        and siblings.family = accelerator_specs.family
        and siblings.accelerator_id <> accelerator_specs.accelerator_id
    inner join spec_values as sibling_values
        on sibling_values.accelerator_id = siblings.accelerator_id
        and sibling_values.metric = disagreements.metric
        and sibling_values.is_reference
    where disagreements.metric in ('memory_gb', 'memory_bw_tbps', 'tdp_w')
        and abs(disagreements.value / sibling_values.value - 1) <= 0.02
    group by disagreements.accelerator_id, disagreements.metric, disagreements.source

),

diagnosed as (

    select
        disagreements.*,
        accelerator_specs.form_factor,
        sibling_matches.sibling_id,
        case
            when disagreements.is_tensor_metric
                and abs(disagreements.ratio / 2 - 1) <= 0.02
                and (
                    accelerator_specs.form_factor ilike '%consumer%'
                    or accelerator_specs.name ilike '%geforce%'
                )
                and disagreements.metric in (
                    'peak_bf16_dense_tflops', 'peak_fp16_dense_tflops', 'peak_fp8_dense_tflops'
                )
                then 'likely FP16-accumulate rate: GeForce parts run FP32-accumulate (the '
                    || 'catalogued dense figure) at half this rate'
            when disagreements.is_tensor_metric
                and abs(disagreements.ratio / 2 - 1) <= 0.02
                then 'likely 2:4-sparse: about 2x the dense value'
            when sibling_matches.sibling_id is not null
                and disagreements.metric in ('memory_gb', 'memory_bw_tbps')
                then 'likely a different memory variant: the value of '
                    || sibling_matches.sibling_id
            when sibling_matches.sibling_id is not null
                then 'likely a different variant of the part: the value of '
                    || sibling_matches.sibling_id
            when disagreements.ratio >= (
                    case
                        when disagreements.metric like 'peak_%' then 3.92
                        else 1.96
                    end
                )
                and abs(disagreements.ratio / round(disagreements.ratio) - 1) <= 0.02
                and (
                    round(disagreements.ratio) = 72
                    or (cast(round(disagreements.ratio) as bigint)
                        & (cast(round(disagreements.ratio) as bigint) - 1)) = 0
                )
                then 'likely per-system or per-board rather than per-chip: '
                    || cast(round(disagreements.ratio) as integer) || 'x the per-chip value'
            when disagreements.metric in ('memory_gb', 'memory_bw_tbps')
                and abs(disagreements.ratio / 0.5 - 1) <= 0.02
                then 'likely per-die: half of a two-die package'
            when disagreements.metric = 'interconnect_bw_gbps'
                and abs(disagreements.ratio / 0.5 - 1) <= 0.02
                then 'likely one direction of the link: the catalog keeps the bidirectional total'
        end as diagnosis
    from disagreements
    inner join accelerator_specs using (accelerator_id)
    left join sibling_matches using (accelerator_id, metric, source)

),

final as (

    select
        diagnosed.accelerator_id,
        diagnosed.metric,
        diagnosed.source,
        diagnosed.value,
        diagnosed.reference_source,
        diagnosed.reference_value,
        round(diagnosed.ratio, 4) as ratio,
        round(100 * (diagnosed.ratio - 1), 2) as pct_diff,
        diagnosed.diagnosis,
        value_lists.all_values,
        diagnosed.accelerator_names_raw,
        diagnosed.n_distinct_values,
        diagnosed.observed_at
    from diagnosed
    inner join value_lists using (accelerator_id, metric)

)

select * from final
order by final.accelerator_id, final.metric, final.source
