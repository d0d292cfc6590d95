-- one row per metric of one accelerator as Epoch AI's ML hardware CSV states it, per fetch,
-- with the value converted to the unit its metric name carries.
-- Epoch writes SI base units (the parser records the unit of each column):
-- * FLOP/s, OP/s -> / 1e12 (TFLOP/s, TOP/s);
-- * byte -> / 1e9 (GB: Epoch transcribes a vendor's "80 GB" as 80e9 bytes);
-- * byte/s -> / 1e12 for memory bandwidth (TB/s), / 1e9 for intranode bandwidth (GB/s);
-- * bit-OP/s (Epoch's own TPP) -> / 1e12 (TOP/s x bit, the unit of the BIS thresholds);
-- * W and mm2 as they are.
-- A unit not listed leaves value null (caught by the check spec_units_converted).

with

source as (

    select * from stg_raw__spec_observations
    where stg_raw__spec_observations.source = 'epoch'

),

converted as (

    select
        ---------- ids
        source.fetch_id,
        source.source,
        source.accelerator_name_raw,
        source.metric,

        ---------- value in the metric's unit
        source.value * case
            when source.unit in ('FLOP/s', 'OP/s', 'bit-OP/s') then 1e-12
            when source.unit = 'byte' and source.metric = 'memory_gb' then 1e-9
            when source.unit = 'byte/s' and source.metric = 'memory_bw_tbps' then 1e-12
            when source.unit = 'byte/s' and source.metric = 'interconnect_bw_gbps' then 1e-9
            when source.unit in ('W', 'mm2') then 1.0
        end as value,

        ---------- as the source states it
        source.value as source_value,
        source.unit as source_unit,

        ---------- timestamps
        source.observed_at

    from source

)

select * from converted
