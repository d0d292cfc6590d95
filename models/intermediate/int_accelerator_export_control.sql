-- one row per catalogued accelerator: US export-control metrics under the October 2023 rule
-- (BIS, 88 FR 73458; thresholds as data in catalog/export_control_thresholds.csv).
--
-- * TPP (total processing performance) = 2 x MacTOPS x bit length of the operation, the
--   maximum over the precisions the chip supports; 2 x MacTOPS is the datasheet TOPS/TFLOPS
--   figure, and the rule says to use the DENSE figure for chips that also do sparse math.
--   So: max over the reconciled dense peaks of value x bit length (fp64 64, fp32 and tf32
--   32, bf16 and fp16 16, fp8 and int8 8, fp4 4). tpp_precision names the precision(s)
--   reaching the maximum. E.g. H100 SXM 1978.9 x 8 = 15,831 (fp8, int8); A100 624 x 8 =
--   4,992 (int8; the same as 312 x 16 bf16/fp16).
-- * performance density = TPP / die area (mm2, the applicable logic die area); null where the
--   catalog has no die area (chiplet parts whose summed logic-die area is not published).
-- * band: the first ECCN (3A090.a before 3A090.b) with a prong that holds; a prong marked
--   applies_to 'data_center' does not apply to consumer parts (form factor "consumer" or a
--   GeForce name: Note 2 to 3A090, not designed or marketed for data centers; workstation
--   cards count as data-center parts, the conservative reading). When no prong holds:
--   'undetermined: no die area' if a prong could still hold once the density is known,
--   'not applicable: not a data-center part (Note 2)' if a data-center prong would hold,
--   else 'not 3A090'. Null when no dense throughput is known.
-- * tpp_epoch: Epoch AI's own "Total processing performance" for the part (the row of its most
--   specific spelling), a cross-check of tpp.

with

chosen_values as (

    select * from int_spec_values
    where int_spec_values.is_chosen

),

accelerator_specs as (

    select * from stg_curated__accelerators

),

thresholds as (

    select * from stg_curated__export_control_thresholds

),

epoch_tpp as (

    select
        int_spec_observations.accelerator_id,
        int_spec_observations.value as tpp_epoch
    from int_spec_observations
    where int_spec_observations.source = 'epoch'
        and int_spec_observations.metric = 'tpp'
        and int_spec_observations.accelerator_id is not null
    qualify row_number() over (
        partition by int_spec_observations.accelerator_id
        order by length(int_spec_observations.accelerator_name_raw) desc,
            int_spec_observations.accelerator_name_raw
    ) = 1

),

bit_lengths as (

    select * from (
        values
            ('peak_fp64_dense_tflops', 'fp64', 64),
            ('peak_fp64_matrix_dense_tflops', 'fp64_matrix', 64),
            ('peak_fp32_dense_tflops', 'fp32', 32),
            ('peak_tf32_dense_tflops', 'tf32', 32),
            ('peak_bf16_dense_tflops', 'bf16', 16),
            ('peak_fp16_dense_tflops', 'fp16', 16),
            ('peak_fp8_dense_tflops', 'fp8', 8),
            ('peak_int8_dense_tflops', 'int8', 8),
            ('peak_fp4_dense_tflops', 'fp4', 4)
    ) as bit_lengths (metric, precision, bit_length)

),

tpp_candidates as (

    select
        chosen_values.accelerator_id,
        bit_lengths.precision,
        bit_lengths.bit_length,
        chosen_values.value * bit_lengths.bit_length as tpp
    from chosen_values
    inner join bit_lengths using (metric)

),

tpp_max as (

    select
        tpp_candidates.accelerator_id,
        max(tpp_candidates.tpp) as tpp
    from tpp_candidates
    group by tpp_candidates.accelerator_id

),

tpp_best as (

    select
        tpp_max.accelerator_id,
        tpp_max.tpp,
        string_agg(tpp_candidates.precision, ', ' order by tpp_candidates.bit_length desc,
            tpp_candidates.precision) as tpp_precision
    from tpp_max
    inner join tpp_candidates
        on tpp_candidates.accelerator_id = tpp_max.accelerator_id
        and tpp_candidates.tpp >= tpp_max.tpp * (1 - 1e-9)
    group by tpp_max.accelerator_id, tpp_max.tpp

),

die_areas as (

    select
        chosen_values.accelerator_id,
        chosen_values.value as die_area_mm2
    from chosen_values
    where chosen_values.metric = 'die_area_mm2'

),

measures as (

    select
        accelerator_specs.accelerator_id,
        coalesce(
            accelerator_specs.form_factor ilike '%consumer%'
            or accelerator_specs.name ilike '%geforce%',
            false
        ) as is_non_data_center,
        tpp_best.tpp,
        tpp_best.tpp_precision,
        die_areas.die_area_mm2,
        tpp_best.tpp / die_areas.die_area_mm2 as performance_density
    from accelerator_specs
    left join tpp_best using (accelerator_id)
    left join die_areas
        on die_areas.accelerator_id = accelerator_specs.accelerator_id

),

-- prongs whose TPP bounds hold, with whether the density bounds hold (null: unknown)
prong_tests as (

    select
        measures.accelerator_id,
        thresholds.eccn,
        thresholds.prong,
        thresholds.applies_to,
        (thresholds.pd_min is null or measures.performance_density >= thresholds.pd_min)
        and (thresholds.pd_max is null or measures.performance_density < thresholds.pd_max)
            as density_holds
    from measures
    inner join thresholds
        on measures.tpp >= coalesce(thresholds.tpp_min, 0)
        and (thresholds.tpp_max is null or measures.tpp < thresholds.tpp_max)

),

outcomes as (

    select
        measures.accelerator_id,
        min(prong_tests.eccn) filter (
            where prong_tests.density_holds
                and (prong_tests.applies_to = 'any' or not measures.is_non_data_center)
        ) as band,
        coalesce(bool_or(prong_tests.density_holds is null
            and (prong_tests.applies_to = 'any' or not measures.is_non_data_center))
            filter (where prong_tests.prong is not null), false) as pending_density,
        coalesce(bool_or(coalesce(prong_tests.density_holds, true)
            and prong_tests.applies_to = 'data_center' and measures.is_non_data_center)
            filter (where prong_tests.prong is not null), false) as note_2_excludes
    from measures
    left join prong_tests using (accelerator_id)
    group by measures.accelerator_id

),

band_prongs as (

    select
        outcomes.accelerator_id,
        string_agg(prong_tests.prong, ', ' order by prong_tests.prong) as prongs
    from outcomes
    inner join prong_tests
        on prong_tests.accelerator_id = outcomes.accelerator_id
        and prong_tests.eccn = outcomes.band
        and prong_tests.density_holds
    inner join measures
        on measures.accelerator_id = outcomes.accelerator_id
    where prong_tests.applies_to = 'any' or not measures.is_non_data_center
    group by outcomes.accelerator_id

),

final as (

    select
        measures.accelerator_id,
        measures.tpp,
        measures.tpp_precision,
        measures.performance_density,
        case
            when measures.tpp is null then null
            when outcomes.band is not null then outcomes.band
            when outcomes.pending_density then 'undetermined: no die area'
            when outcomes.note_2_excludes
                then 'not applicable: not a data-center part (Note 2)'
            else 'not 3A090'
        end as eccn_3a090_band,
        band_prongs.prongs as eccn_3a090_prongs,
        epoch_tpp.tpp_epoch
    from measures
    left join outcomes using (accelerator_id)
    left join band_prongs
        on band_prongs.accelerator_id = measures.accelerator_id
    left join epoch_tpp
        on epoch_tpp.accelerator_id = measures.accelerator_id

)

select * from final
