-- one row per spec source: its rank in the reconciliation (1 wins) and which metrics it may
-- supply (catalog/spec_source_precedence.csv; a new spec source adds one row there).

select * from curated.spec_source_precedence
