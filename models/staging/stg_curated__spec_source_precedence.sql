-- one row per spec source: its rank in the reconciliation (1 wins) and which metrics it may
-- supply (catalog/spec_source_precedence.csv; a new spec source adds one row there).

with

source as (

    select * from curated.spec_source_precedence

)

select
    source.source,
    cast(source.source_rank as integer) as source_rank,
    source.source_tier,
    source.fills,
    source.why
from source
