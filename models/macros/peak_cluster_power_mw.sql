-- returns the facility power (MW) of `n_gpus` at full load: chip TDP x server-to-chip power
-- ratio x PUE (no average-load discount).

create or replace macro peak_cluster_power_mw(n_gpus, tdp_w, server_to_chip_power, pue) as
    n_gpus * tdp_w * server_to_chip_power * pue / 1e6
