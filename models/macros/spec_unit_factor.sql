-- The factor that converts a spec figure from the unit its source states it in to the unit its
-- metric name carries (int_spec_observations multiplies every source's value by it); null for
-- a unit it does not know (the check spec_units_converted blocks the publish then).
-- * memory_gb in GB, as vendors print it: GB and GiB as printed (HBM/GDDR sizes are binary,
--   "80 GB" and "80 GiB" name the same part), MB and MiB / 1024, TB * 1000, byte / 1e9 (Epoch
--   transcribes a vendor's "80 GB" as 80e9 bytes);
-- * memory_bw_tbps in TB/s (GB/s / 1000, byte/s / 1e12); interconnect_bw_gbps in GB/s
--   (byte/s / 1e9);
-- * throughput in TFLOP/s (TOP/s for int8, TOP/s x bit for TPP): FLOP/s, OP/s and bit-OP/s
--   / 1e12, GFLOP/s / 1000, PFLOP/s * 1000;
-- * W, mm2 and counts as they are.
create or replace macro spec_unit_factor(metric, unit) as case
    when metric = 'memory_gb' and unit in ('GB', 'GiB') then 1.0
    when metric = 'memory_gb' and unit in ('MB', 'MiB') then 1.0 / 1024
    when metric = 'memory_gb' and unit = 'TB' then 1000.0
    when metric = 'memory_gb' and unit = 'byte' then 1e-9
    when metric = 'memory_bw_tbps' and unit = 'TB/s' then 1.0
    when metric = 'memory_bw_tbps' and unit = 'GB/s' then 1e-3
    when metric = 'memory_bw_tbps' and unit = 'byte/s' then 1e-12
    when metric = 'interconnect_bw_gbps' and unit = 'GB/s' then 1.0
    when metric = 'interconnect_bw_gbps' and unit = 'byte/s' then 1e-9
    when unit in ('FLOP/s', 'OP/s', 'bit-OP/s') then 1e-12
    when unit = 'GFLOP/s' then 1e-3
    when unit in ('TFLOP/s', 'TOP/s') then 1.0
    when unit = 'PFLOP/s' then 1e3
    when unit in ('W', 'mm2', 'count') then 1.0
end
