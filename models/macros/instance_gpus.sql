-- returns the GPUs one rented instance must hold for a job on `gpus` GPUs: the count rounded up
-- to 1, 2, 4 or 8 (8, full nodes, for anything larger). The cost macros take a rental basis at
-- offers of at least that size (price_bases_by_size.min_gpus_per_instance).

create or replace macro instance_gpus(gpus) as
    case when gpus <= 1 then 1 when gpus <= 2 then 2 when gpus <= 4 then 4 else 8 end
