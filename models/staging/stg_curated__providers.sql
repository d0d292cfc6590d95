-- one row per provider whose listings are not its own machines at its own list price
-- (catalog/providers.csv): aggregators that resell other providers' machines, and
-- marketplaces of independent hosts. Providers not listed here list their own machines.

select * replace (lower(provider) as provider, lower(listing_kind) as listing_kind)
from curated.providers
