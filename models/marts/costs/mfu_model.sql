-- one row: the calibrated MFU model (catalog/mfu_model.csv; fitted by
-- `python scripts/mfu_fit.py` on the high-confidence runs of the validation mart, see
-- docs/validation.md). The effective utilisation of a run against the dense BF16 peak,
-- goodput losses included, is
--   exp(intercept + hopper [Hopper] + moe [mixture of experts] + fp8 [FP8 run]
--       + hopper_log10_params x log10(clamped params_active / 1e10) [Hopper])
-- for accelerators of the families the fit covers (mfu_group ampere, hopper); other families
-- take a fitted group's curve times a measured factor (macro training_mfu). Macro
-- calibrated_training_mfu.
--
-- columns:
--   intercept [log fraction]: log effective utilisation of a dense BF16 Ampere-family run
--   hopper [log ratio]: added for Hopper-family accelerators (H100, H200, H800, GH200)
--   moe [log ratio]: added for a mixture of experts (params_total > params_active)
--   fp8 [log ratio]: added for an FP8 run (utilisation still measured against the BF16 peak)
--   hopper_log10_params [log ratio per decade]: times log10(params_active / 1e10), Hopper only
--   ridge_lambda: the ridge penalty on every coefficient but the intercept in the fit
--   hopper_params_min [parameters]: smallest params_active of the fitted Hopper runs; the size
--     term is clamped to [hopper_params_min, hopper_params_max] (no extrapolation)
--   hopper_params_max [parameters]: largest params_active of the fitted Hopper runs
--   fitted_runs [runs]: high-confidence runs the coefficients were fitted on

with

terms as (

    select * from stg_curated__mfu_model

),

final as (

    select
        max(terms.coefficient) filter (where terms.term = 'intercept') as intercept,
        max(terms.coefficient) filter (where terms.term = 'hopper') as hopper,
        max(terms.coefficient) filter (where terms.term = 'moe') as moe,
        max(terms.coefficient) filter (where terms.term = 'fp8') as fp8,
        max(terms.coefficient) filter (where terms.term = 'hopper_log10_params')
            as hopper_log10_params,
        max(terms.coefficient) filter (where terms.term = 'ridge_lambda') as ridge_lambda,
        max(terms.coefficient) filter (where terms.term = 'hopper_params_min')
            as hopper_params_min,
        max(terms.coefficient) filter (where terms.term = 'hopper_params_max')
            as hopper_params_max,
        cast(max(terms.coefficient) filter (where terms.term = 'fitted_runs') as integer)
            as fitted_runs
    from terms

)

select * from final
