-- returns the seller an aggregator's sku names (Shadeform's `lambda_h100x8` -> 'lambda'), read
-- with the provider's sku_seller_regex (catalog/providers.csv); null for a provider that is no
-- aggregator or a sku that names no seller. One rule for the offers in force
-- (int_offers_mapped) and the daily history the price index reads (price_index).

create or replace macro resold_from(listing_kind, sku, sku_seller_regex) as
    case
        when listing_kind = 'aggregator'
            then nullif(regexp_extract(lower(sku), sku_seller_regex, 1), '')
    end
