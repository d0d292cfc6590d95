-- one row per provider whose listings are not its own machines at its own list price
-- (catalog/providers.csv): aggregators that resell other providers' machines, and
-- marketplaces of independent hosts; and one per provider whose currency is stated (listing
-- kind 'own': Scaleway and Seeweb in EUR, OVHcloud in USD, each with its source_url). Providers
-- not listed here list their own machines, in the currency their source states per row.

select * replace (
    lower(provider) as provider,
    lower(listing_kind) as listing_kind,
    upper(currency) as currency
)
from curated.providers
