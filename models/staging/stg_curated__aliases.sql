-- one row per spelling of an accelerator (gpu name or sku) in the curated catalog.
-- alias_key is the normalised spelling (lowercase, letters and digits only) used for matching;
-- provider null means the alias applies to any provider.

select
    alias,
    name_key(alias) as alias_key,
    accelerator_id,
    lower(kind) as alias_kind,
    lower(provider) as provider,
    note
from curated.aliases
