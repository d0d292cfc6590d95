-- one row per accelerator in the curated catalog (catalog/accelerators.csv), typed by
-- warehouse/curated.py: empty strings become null, figures become double, dates become date.

select * from curated.accelerators
