-- one row per MLPerf system whose systems/<system>.json is not published or could not be
-- obtained (catalog/mlperf_systems.csv), with the accelerator and count read from its
-- result page. A system description loaded by the source always wins over this row.

select * rename (accelerator_name as accelerator_name_raw) from curated.mlperf_systems
