-- returns the facility energy (MWh) of `gpu_hours`: chip TDP x server-to-chip power ratio x
-- average power fraction x PUE (Epoch's energy method, cost-methods.md §2.2 step 5).

create or replace macro training_energy_mwh(
    gpu_hours, tdp_w, server_to_chip_power, avg_power_fraction, pue
) as gpu_hours * tdp_w / 1000.0 * server_to_chip_power * avg_power_fraction * pue / 1000.0
