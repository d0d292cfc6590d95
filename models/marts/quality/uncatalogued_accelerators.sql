-- one row per accelerator name (normalised spelling) seen in a scraped spec source or a price
-- source in force that maps to no catalogued accelerator: the curation queue for
-- catalog/accelerators.csv (new part) or catalog/aliases.csv (new spelling of a known part).
--
-- * name_key: lowercase letters and digits of the spelling (how aliases match); spellings
--   lists every spelling seen, accelerator_name one of them (the most often seen);
-- * spec figures: the best-ranked spec source's value per metric (int_spec_source_precedence),
--   in the unit the column name carries;
-- * likely_ml_accelerator: rented in a price source, listed by Epoch (chips used for notable
--   ML models) or MLPerf (submitted systems), with a tensor figure, or with >= 32 GB memory;
--   the wide GPU databases (Wikipedia, TechPowerUp) also list thousands of old consumer GPUs.
--
-- columns:
--   name_key: the spelling normalised to lowercase letters and digits (how aliases match)
--   accelerator_name: the spelling seen most often
--   spellings: every spelling seen, '; '-separated
--   spec_sources: spec sources naming it, comma-separated; null if none
--   price_sources: price sources with an offer in force carrying it, comma-separated; null if none
--   offer_count [offers]: offers in force carrying it
--   memory_gb [GB]: memory per accelerator as the best-ranked spec source states it; null if none
--     does
--   memory_bw_tbps [TB/s]: memory bandwidth as the best-ranked spec source states it; null if none
--     does
--   peak_bf16_dense_tflops [TFLOP/s]: BF16 tensor figure as the best-ranked spec source states it
--     (not checked against a datasheet); null if none does
--   peak_fp16_dense_tflops [TFLOP/s]: FP16 figure as the best-ranked spec source states it (not
--     checked against a datasheet); null if none does
--   peak_fp32_dense_tflops [TFLOP/s]: FP32 figure as the best-ranked spec source states it; null if
--     none does
--   tdp_w [W]: TDP as the best-ranked spec source states it; null if none does
--   likely_ml_accelerator: rented in a price source, listed by Epoch or MLPerf, with a tensor
--     figure, or with >= 32 GB of memory
--   last_observed_at [timestamp (UTC)]: newest observation of the name in a spec or price source

with

observations as (

    select * from int_spec_observations

),

offers as (

    select * from int_offers_mapped

),

precedence as (

    select * from int_spec_source_precedence

),

unmapped_specs as (

    select
        observations.name_key,
        observations.accelerator_name_raw,
        observations.source,
        coalesce(precedence.source_rank, 99) as source_rank,
        observations.metric,
        observations.value,
        observations.observed_at
    from observations
    left join precedence using (source)
    where observations.accelerator_id is null
        and observations.name_key <> ''

),

unmapped_offers as (

    select
        name_key(offers.gpu_name_raw) as name_key,
        offers.gpu_name_raw as accelerator_name_raw,
        offers.source,
        offers.observed_at
    from offers
    where offers.accelerator_id is null
        and offers.gpu_name_raw is not null
        and name_key(offers.gpu_name_raw) <> ''

),

spellings as (

    select
        all_names.name_key,
        all_names.accelerator_name_raw,
        count(*) as n_seen
    from (
        select unmapped_specs.name_key, unmapped_specs.accelerator_name_raw
        from unmapped_specs
        union all
        select unmapped_offers.name_key, unmapped_offers.accelerator_name_raw
        from unmapped_offers
    ) as all_names
    group by all_names.name_key, all_names.accelerator_name_raw

),

names as (

    select
        spellings.name_key,
        arg_max(spellings.accelerator_name_raw, spellings.n_seen) as accelerator_name,
        string_agg(spellings.accelerator_name_raw, '; '
            order by spellings.accelerator_name_raw) as spellings
    from spellings
    group by spellings.name_key

),

best_figures as (

    select
        unmapped_specs.name_key,
        unmapped_specs.metric,
        unmapped_specs.value
    from unmapped_specs
    qualify row_number() over (
        partition by unmapped_specs.name_key, unmapped_specs.metric
        order by unmapped_specs.source_rank, unmapped_specs.source, unmapped_specs.value desc
    ) = 1

),

spec_summary as (

    select
        unmapped_specs.name_key,
        string_agg(distinct unmapped_specs.source, ', ' order by unmapped_specs.source)
            as spec_sources,
        max(unmapped_specs.observed_at) as spec_observed_at
    from unmapped_specs
    group by unmapped_specs.name_key

),

figures as (

    select
        best_figures.name_key,
        max(best_figures.value) filter (where best_figures.metric = 'memory_gb') as memory_gb,
        max(best_figures.value) filter (where best_figures.metric = 'memory_bw_tbps')
            as memory_bw_tbps,
        max(best_figures.value) filter (where best_figures.metric = 'peak_bf16_dense_tflops')
            as peak_bf16_dense_tflops,
        max(best_figures.value) filter (where best_figures.metric = 'peak_fp16_dense_tflops')
            as peak_fp16_dense_tflops,
        max(best_figures.value) filter (where best_figures.metric = 'peak_fp32_dense_tflops')
            as peak_fp32_dense_tflops,
        max(best_figures.value) filter (where best_figures.metric = 'tdp_w') as tdp_w,
        bool_or(best_figures.metric in (
            'peak_tf32_dense_tflops', 'peak_bf16_dense_tflops', 'peak_fp16_dense_tflops',
            'peak_fp8_dense_tflops', 'peak_int8_dense_tflops', 'peak_fp4_dense_tflops'
        )) as has_tensor_figure
    from best_figures
    group by best_figures.name_key

),

offer_summary as (

    select
        unmapped_offers.name_key,
        string_agg(distinct unmapped_offers.source, ', ' order by unmapped_offers.source)
            as price_sources,
        count(*) as offer_count,
        max(unmapped_offers.observed_at) as price_observed_at
    from unmapped_offers
    group by unmapped_offers.name_key

),

final as (

    select
        names.name_key,
        names.accelerator_name,
        names.spellings,
        spec_summary.spec_sources,
        offer_summary.price_sources,
        coalesce(offer_summary.offer_count, 0) as offer_count,
        figures.memory_gb,
        figures.memory_bw_tbps,
        figures.peak_bf16_dense_tflops,
        figures.peak_fp16_dense_tflops,
        figures.peak_fp32_dense_tflops,
        figures.tdp_w,
        offer_summary.name_key is not null
            or coalesce(spec_summary.spec_sources like '%epoch%', false)
            or coalesce(spec_summary.spec_sources like '%mlperf%', false)
            or coalesce(figures.has_tensor_figure, false)
            or coalesce(figures.memory_gb >= 32, false) as likely_ml_accelerator,
        greatest(spec_summary.spec_observed_at, offer_summary.price_observed_at)
            as last_observed_at
    from names
    left join spec_summary using (name_key)
    left join offer_summary
        on offer_summary.name_key = names.name_key
    left join figures
        on figures.name_key = names.name_key

)

select * from final
order by
    final.likely_ml_accelerator desc,
    final.offer_count desc,
    final.name_key
