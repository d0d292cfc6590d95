-- one row per curated provenance record (catalog/accelerator_spec_sources.csv): where the figure
-- of one spec cell of catalog/accelerators.csv (accelerator x column) comes from, and how far it
-- was verified.
-- typed by warehouse/curated.py (trimmed, empty is null); here the value is kept as written
-- (value_text), as a number (value: null for a date or an empty cell) and as a date (value_date:
-- the two date columns launch_date and announce_date); verification is lower-cased.

select
    accelerator_id,
    metric,
    value as value_text,
    try_cast(value as double) as value,
    try_cast(value as date) as value_date,
    source_url,
    document,
    lower(verification) as verification,
    note
from curated.accelerator_spec_sources
