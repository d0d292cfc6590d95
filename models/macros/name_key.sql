-- The one normalised key of a name (an accelerator spelling, an alias, a SKU): lowercase,
-- letters and digits only ("NVIDIA H100-SXM5 80GB" -> 'nvidiah100sxm580gb'). Every alias
-- lookup compares these keys; its Python twin is gpucost.catalog.names.name_key (tested equal
-- in tests/models/test_models.py).
create or replace macro name_key(name) as
    regexp_replace(lower(name), '[^a-z0-9]', '', 'g')
