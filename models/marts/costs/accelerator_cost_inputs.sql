-- one row per accelerator: what the cost macros need about it, with the catalog assumption
-- behind each default named.
--
-- * mfu_default: in-run MFU against the dense BF16 peak for its generation
--   (mfu_ampere, mfu_hopper, mfu_blackwell, mfu_cdna, mfu_tpu_*), else mfu_fallback
--   (Epoch's median); FP8 and MoE adjustments are applied by the macro default_training_mfu.
-- * server_to_chip_power: server power per chip / chip TDP: Epoch's DGX-derived ratios for
--   H100/H800/H200 SXM and A100 SXM, else the generic 1.8.
-- * avg_power_fraction: average draw / TDP during training (0.75 GPU, 0.43 TPU; Epoch).
--
-- columns:
--   name: the vendor's product name (accelerators.name)
--   vendor: chip vendor (accelerators.vendor)
--   family: architecture / product family (accelerators.family)
--   mfu_default [fraction]: default in-run MFU against the dense BF16 peak for the accelerator's
--     generation, before the FP8 and MoE adjustments of default_training_mfu
--   mfu_assumption_key: the assumption mfu_default comes from (mfu_ampere, mfu_hopper,
--     mfu_blackwell, mfu_cdna, mfu_tpu_*, else mfu_fallback; default_utilisation when the catalog
--     lacks both)
--   avg_power_fraction_key: the assumption avg_power_fraction comes from (avg_power_fraction_tpu
--     for the TPU family, else avg_power_fraction_gpu)

with

accelerator_specs as (

    select * from accelerators

),

assumptions as (

    select * from cost_assumptions

),

keyed as (

    select
        accelerator_specs.*,
        case
            when accelerator_specs.accelerator_id in ('google-tpu-v4', 'google-tpu-v5p')
                then 'mfu_tpu_v4_v5p'
            when accelerator_specs.accelerator_id = 'google-tpu-v5e' then 'mfu_tpu_v5e'
            when accelerator_specs.accelerator_id = 'google-tpu-v6e' then 'mfu_tpu_v6e'
            when accelerator_specs.family = 'Ampere' then 'mfu_ampere'
            when accelerator_specs.family = 'Hopper' then 'mfu_hopper'
            when accelerator_specs.family like 'Blackwell%' then 'mfu_blackwell'
            when accelerator_specs.family like 'CDNA%' then 'mfu_cdna'
            else 'mfu_fallback'
        end as mfu_key,
        case
            when accelerator_specs.accelerator_id like 'nvidia-h100-sxm%'
                or accelerator_specs.accelerator_id like 'nvidia-h800-sxm%'
                or accelerator_specs.accelerator_id like 'nvidia-h200-sxm%'
                then 'server_to_chip_power_h100'
            when accelerator_specs.accelerator_id like 'nvidia-a100-sxm%'
                then 'server_to_chip_power_a100'
            else 'server_to_chip_power'
        end as power_ratio_key,
        case
            when accelerator_specs.family = 'TPU' then 'avg_power_fraction_tpu'
            else 'avg_power_fraction_gpu'
        end as avg_power_key
    from accelerator_specs

),

final as (

    select
        ---------- ids
        keyed.accelerator_id,
        keyed.name,
        keyed.vendor,
        keyed.family,

        ---------- dense peak throughput (TFLOP/s; never the 2:4-sparse figure)
        keyed.peak_bf16_dense_tflops,
        keyed.peak_fp16_dense_tflops,
        keyed.peak_fp8_dense_tflops,
        keyed.peak_fp4_dense_tflops,
        keyed.peak_int8_dense_tflops,

        ---------- memory, power, price
        keyed.memory_gb,
        keyed.memory_bw_tbps,
        keyed.tdp_w,
        keyed.purchase_price_usd,

        ---------- defaults, with the assumption behind each
        coalesce(mfu.value, fallback_mfu.value, default_utilisation.value) as mfu_default,
        case
            when mfu.value is not null then keyed.mfu_key
            when fallback_mfu.value is not null then 'mfu_fallback'
            else 'default_utilisation'
        end as mfu_assumption_key,
        coalesce(power_ratio.value, generic_power_ratio.value) as server_to_chip_power,
        case
            when power_ratio.value is not null then keyed.power_ratio_key
            else 'server_to_chip_power'
        end as server_to_chip_power_key,
        avg_power.value as avg_power_fraction,
        keyed.avg_power_key as avg_power_fraction_key

    from keyed
    left join assumptions as mfu
        on mfu.assumption_key = keyed.mfu_key
    left join assumptions as fallback_mfu
        on fallback_mfu.assumption_key = 'mfu_fallback'
    left join assumptions as default_utilisation
        on default_utilisation.assumption_key = 'default_utilisation'
    left join assumptions as power_ratio
        on power_ratio.assumption_key = keyed.power_ratio_key
    left join assumptions as generic_power_ratio
        on generic_power_ratio.assumption_key = 'server_to_chip_power'
    left join assumptions as avg_power
        on avg_power.assumption_key = keyed.avg_power_key

)

select * from final
order by final.accelerator_id
