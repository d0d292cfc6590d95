-- guards: a currency catalog/providers.csv states for a provider is an ISO 4217 code (three
-- capital letters) with its source_url: the currency a provider's prices are read in is never
-- an unsourced guess (docs/currencies.md).

select
    providers.provider,
    providers.currency,
    case
        when providers.source_url is null then 'source_url'
        else 'currency is not an ISO 4217 code'
    end as problem
from stg_curated__providers as providers
where providers.currency is not null
    and (
        providers.source_url is null
        or not regexp_full_match(providers.currency, '[A-Z]{3}')
    )
