-- one row per registered source (catalog/sources/*.py, loaded by warehouse/curated.py): its
-- kind and the documented live endpoint, the source_url of rows replayed from files.

select * from curated.sources
