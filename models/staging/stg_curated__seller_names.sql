-- one row per spelling of a seller that differs from its canonical provider name
-- (catalog/seller_names.csv): lambdalabs -> lambda, crusoecloud -> crusoe, ...

select * replace (lower(name) as name, lower(seller) as seller) from curated.seller_names
