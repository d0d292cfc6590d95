-- one row per accelerator: the wide spec table (dense peak throughput per precision, memory,
-- bandwidth, power, die area), the purchase price estimate with its basis, date and source,
-- where each spec value comes from, and the export-control metrics.
--
-- * the curated catalog is the backbone: one row per catalogued accelerator, descriptors and
--   prices from catalog/accelerators.csv;
-- * each spec value is the reconciled one (int_spec_values: the best-ranked source allowed to
--   fill it, curated first), and <metric>_source names the source it came from
--   ('curated', 'epoch', ...); every source's value is in accelerator_spec_values, the
--   disagreements in spec_conflicts; spec_source lists the sources used, best-ranked first;
-- * training_precision / peak_training_dense_tflops: bf16 where the part has it, else fp16
--   (V100, T4: the best 16-bit training precision);
-- * tpp, tpp_precision, performance_density, eccn_3a090_band, eccn_3a090_prongs:
--   int_accelerator_export_control (TPP = max over precisions of dense TFLOP/s x bit length);
--   tpp_epoch is Epoch AI's own TPP for the part, a cross-check.
--
-- columns:
--   vendor: chip vendor (NVIDIA, AMD, Google, Intel, AWS, ...)
--   family: architecture / product family (Ampere, Hopper, Blackwell, CDNA 3, TPU v5, ...)
--   name: the vendor's product name
--   form_factor: SXM4, SXM5, PCIe, OAM, TPU board, ...
--   launch_date: first availability: the date the part first shipped or became generally
--     available (first of the month or quarter when only that is known; the provenance note
--     says so)
--   announce_date: the date the vendor announced the part; null when not recorded
--   memory_type: memory technology (HBM2e, HBM3, GDDR6, ...)
--   interconnect_link: the scale-up link behind interconnect_bw_gbps (NVLink 4, NVLink 3
--     bridge, Infinity Fabric, ICI, ...; the PCIe host link for a part without one)
--   vendor_bf16_sparse_tflops [TFLOP/s]: the vendor's printed 2:4-sparse BF16 figure, kept only
--     to check that the dense figure is half of it (never used in costs)
--   purchase_price_basis: what the purchase price estimate is (list price, analyst estimate ...)
--   purchase_price_date: when the purchase price estimate was true
--   purchase_price_source_url: where the purchase price estimate comes from
--   source_url: where the spec figures come from (datasheet, vendor page)
--   notes: curation notes (variants, caveats, sparse figures seen on the datasheet)
--   spec_source: the sources the row's values came from, best-ranked first ('curated+epoch')
--   memory_gb_source: the source memory_gb comes from: the best-ranked one stating it ('curated'
--     = catalog/accelerators.csv, then rocm, mlperf, epoch, wikipedia, techpowerup); null when
--     none does
--   memory_bw_tbps_source: source of memory_bw_tbps (as memory_gb_source)
--   interconnect_bw_gbps_source: source of interconnect_bw_gbps ('curated' or 'rocm': filled from
--     vendor text only); null when neither states it
--   tdp_w_source: source of tdp_w (as memory_gb_source)
--   die_area_mm2_source: source of die_area_mm2 ('curated' or 'rocm': filled from vendor text
--     only); null when neither states it
--   peak_fp64_dense_tflops_source: source of peak_fp64_dense_tflops ('curated' or 'rocm':
--     throughput is filled from vendor text only); null when neither states it
--   peak_fp64_matrix_dense_tflops_source: source of peak_fp64_matrix_dense_tflops ('curated' or
--     'rocm': throughput is filled from vendor text only); null when neither states it
--   peak_fp32_dense_tflops_source: source of peak_fp32_dense_tflops ('curated' or 'rocm':
--     throughput is filled from vendor text only); null when neither states it
--   peak_tf32_dense_tflops_source: source of peak_tf32_dense_tflops ('curated' or 'rocm':
--     throughput is filled from vendor text only); null when neither states it
--   peak_bf16_dense_tflops_source: source of peak_bf16_dense_tflops ('curated' or 'rocm':
--     throughput is filled from vendor text only); null when neither states it
--   peak_fp16_dense_tflops_source: source of peak_fp16_dense_tflops ('curated' or 'rocm':
--     throughput is filled from vendor text only); null when neither states it
--   peak_fp8_dense_tflops_source: source of peak_fp8_dense_tflops ('curated' or 'rocm': throughput
--     is filled from vendor text only); null when neither states it
--   peak_int8_dense_tflops_source: source of peak_int8_dense_tflops ('curated' or 'rocm':
--     throughput is filled from vendor text only); null when neither states it
--   peak_fp4_dense_tflops_source: source of peak_fp4_dense_tflops ('curated' or 'rocm': throughput
--     is filled from vendor text only); null when neither states it
--   spec_conflict_count [values]: values of other sources more than 2% from the reference value of
--     their metric (the accelerator's rows of spec_conflicts)
--   training_precision: bf16 where the part has a dense BF16 figure, else fp16 (V100, T4); null
--     with neither
--   peak_training_dense_tflops [TFLOP/s]: dense peak throughput at training_precision
--   tpp [TFLOP/s x bit length]: total processing performance (US ECCN 3A090, October 2023 rule):
--     the maximum over precisions of the dense TFLOP/s (TOP/s) x the operation's bit length (fp64
--     64, fp32 and tf32 32, bf16 and fp16 16, fp8 and int8 8, fp4 4)
--   tpp_precision: the precision(s) reaching tpp, comma-separated, widest first
--   performance_density [TPP per mm²]: tpp / die_area_mm2; null without a die area
--   eccn_3a090_band: export-control band: 3A090.a, 3A090.b, 'undetermined: no die area', 'not
--     applicable: not a data-center part (Note 2)' or 'not 3A090'; null when no dense throughput is
--     known
--   eccn_3a090_prongs: the prongs of that band that hold (a.1, a.2, b.1, b.2), comma-separated;
--     null outside a band
--   tpp_epoch [TFLOP/s x bit length]: Epoch AI's own total processing performance for the part (its
--     most specific spelling), a cross-check of tpp; null when Epoch gives none

with

curated_accelerators as (

    select * from stg_curated__accelerators

),

spec_values as (

    select * from int_spec_values

),

export_control as (

    select * from int_accelerator_export_control

),

chosen as (

    select
        spec_values.accelerator_id,
        max(spec_values.value) filter (where spec_values.metric = 'memory_gb') as memory_gb,
        max(spec_values.source) filter (where spec_values.metric = 'memory_gb')
            as memory_gb_source,
        max(spec_values.value) filter (where spec_values.metric = 'memory_bw_tbps')
            as memory_bw_tbps,
        max(spec_values.source) filter (where spec_values.metric = 'memory_bw_tbps')
            as memory_bw_tbps_source,
        max(spec_values.value) filter (where spec_values.metric = 'interconnect_bw_gbps')
            as interconnect_bw_gbps,
        max(spec_values.source) filter (where spec_values.metric = 'interconnect_bw_gbps')
            as interconnect_bw_gbps_source,
        max(spec_values.value) filter (where spec_values.metric = 'tdp_w') as tdp_w,
        max(spec_values.source) filter (where spec_values.metric = 'tdp_w') as tdp_w_source,
        max(spec_values.value) filter (where spec_values.metric = 'die_area_mm2')
            as die_area_mm2,
        max(spec_values.source) filter (where spec_values.metric = 'die_area_mm2')
            as die_area_mm2_source,
        max(spec_values.value) filter (where spec_values.metric = 'peak_fp64_dense_tflops')
            as peak_fp64_dense_tflops,
        max(spec_values.source) filter (where spec_values.metric = 'peak_fp64_dense_tflops')
            as peak_fp64_dense_tflops_source,
        max(spec_values.value)
            filter (where spec_values.metric = 'peak_fp64_matrix_dense_tflops')
            as peak_fp64_matrix_dense_tflops,
        max(spec_values.source)
            filter (where spec_values.metric = 'peak_fp64_matrix_dense_tflops')
            as peak_fp64_matrix_dense_tflops_source,
        max(spec_values.value) filter (where spec_values.metric = 'peak_fp32_dense_tflops')
            as peak_fp32_dense_tflops,
        max(spec_values.source) filter (where spec_values.metric = 'peak_fp32_dense_tflops')
            as peak_fp32_dense_tflops_source,
        max(spec_values.value) filter (where spec_values.metric = 'peak_tf32_dense_tflops')
            as peak_tf32_dense_tflops,
        max(spec_values.source) filter (where spec_values.metric = 'peak_tf32_dense_tflops')
            as peak_tf32_dense_tflops_source,
        max(spec_values.value) filter (where spec_values.metric = 'peak_bf16_dense_tflops')
            as peak_bf16_dense_tflops,
        max(spec_values.source) filter (where spec_values.metric = 'peak_bf16_dense_tflops')
            as peak_bf16_dense_tflops_source,
        max(spec_values.value) filter (where spec_values.metric = 'peak_fp16_dense_tflops')
            as peak_fp16_dense_tflops,
        max(spec_values.source) filter (where spec_values.metric = 'peak_fp16_dense_tflops')
            as peak_fp16_dense_tflops_source,
        max(spec_values.value) filter (where spec_values.metric = 'peak_fp8_dense_tflops')
            as peak_fp8_dense_tflops,
        max(spec_values.source) filter (where spec_values.metric = 'peak_fp8_dense_tflops')
            as peak_fp8_dense_tflops_source,
        max(spec_values.value) filter (where spec_values.metric = 'peak_int8_dense_tflops')
            as peak_int8_dense_tflops,
        max(spec_values.source) filter (where spec_values.metric = 'peak_int8_dense_tflops')
            as peak_int8_dense_tflops_source,
        max(spec_values.value) filter (where spec_values.metric = 'peak_fp4_dense_tflops')
            as peak_fp4_dense_tflops,
        max(spec_values.source) filter (where spec_values.metric = 'peak_fp4_dense_tflops')
            as peak_fp4_dense_tflops_source
    from spec_values
    where spec_values.is_chosen
    group by spec_values.accelerator_id

),

sources_used as (

    select distinct
        spec_values.accelerator_id,
        spec_values.source,
        spec_values.source_rank
    from spec_values
    where spec_values.is_chosen

),

chosen_sources as (

    select
        sources_used.accelerator_id,
        string_agg(sources_used.source, '+' order by sources_used.source_rank,
            sources_used.source) as spec_source
    from sources_used
    group by sources_used.accelerator_id

),

conflict_counts as (

    select
        spec_values.accelerator_id,
        count(*) as spec_conflict_count
    from spec_values
    where spec_values.differs_from_reference
    group by spec_values.accelerator_id

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
        curated_accelerators.announce_date,

        ---------- memory and interconnect
        chosen.memory_gb,
        curated_accelerators.memory_type,
        chosen.memory_bw_tbps,
        chosen.interconnect_bw_gbps,
        curated_accelerators.interconnect_link,

        ---------- power and silicon
        chosen.tdp_w,
        chosen.die_area_mm2,

        ---------- dense peak throughput
        chosen.peak_fp64_dense_tflops,
        chosen.peak_fp64_matrix_dense_tflops,
        chosen.peak_fp32_dense_tflops,
        chosen.peak_tf32_dense_tflops,
        chosen.peak_bf16_dense_tflops,
        chosen.peak_fp16_dense_tflops,
        chosen.peak_fp8_dense_tflops,
        chosen.peak_int8_dense_tflops,
        chosen.peak_fp4_dense_tflops,
        curated_accelerators.vendor_bf16_sparse_tflops,

        ---------- purchase price estimate
        curated_accelerators.purchase_price_usd,
        curated_accelerators.purchase_price_basis,
        curated_accelerators.purchase_price_date,
        curated_accelerators.purchase_price_source_url,

        ---------- provenance
        curated_accelerators.source_url,
        curated_accelerators.notes,
        coalesce(chosen_sources.spec_source, 'curated') as spec_source,

        ---------- where each value comes from
        chosen.memory_gb_source,
        chosen.memory_bw_tbps_source,
        chosen.interconnect_bw_gbps_source,
        chosen.tdp_w_source,
        chosen.die_area_mm2_source,
        chosen.peak_fp64_dense_tflops_source,
        chosen.peak_fp64_matrix_dense_tflops_source,
        chosen.peak_fp32_dense_tflops_source,
        chosen.peak_tf32_dense_tflops_source,
        chosen.peak_bf16_dense_tflops_source,
        chosen.peak_fp16_dense_tflops_source,
        chosen.peak_fp8_dense_tflops_source,
        chosen.peak_int8_dense_tflops_source,
        chosen.peak_fp4_dense_tflops_source,
        coalesce(conflict_counts.spec_conflict_count, 0) as spec_conflict_count,

        ---------- best training precision
        case
            when chosen.peak_bf16_dense_tflops is not null then 'bf16'
            when chosen.peak_fp16_dense_tflops is not null then 'fp16'
        end as training_precision,
        coalesce(chosen.peak_bf16_dense_tflops, chosen.peak_fp16_dense_tflops)
            as peak_training_dense_tflops,

        ---------- export control (ECCN 3A090, October 2023 rule)
        export_control.tpp,
        export_control.tpp_precision,
        export_control.performance_density,
        export_control.eccn_3a090_band,
        export_control.eccn_3a090_prongs,
        export_control.tpp_epoch

    from curated_accelerators
    left join chosen using (accelerator_id)
    left join chosen_sources
        on chosen_sources.accelerator_id = curated_accelerators.accelerator_id
    left join conflict_counts
        on conflict_counts.accelerator_id = curated_accelerators.accelerator_id
    left join export_control
        on export_control.accelerator_id = curated_accelerators.accelerator_id

)

select * from final
order by final.accelerator_id
