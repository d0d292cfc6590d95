-- one row per accelerator with a scale-up fabric (catalog/scale_up_domains.csv), typed: how
-- many accelerators share the high-bandwidth domain tensor parallelism runs in (NVLink /
-- NVSwitch server or rack, Infinity Fabric platform, TPU ICI pod, NeuronLink instance), the
-- link, its bandwidth per accelerator and the source of each figure.

select * from curated.scale_up_domains
