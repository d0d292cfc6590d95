-- one row per spec source: its rank in the reconciliation (1 wins) and which metrics it may
-- supply to the `accelerators` mart when a higher-ranked source leaves the cell empty.
--
-- The order is data: catalog/spec_source_precedence.csv (one row per source, with why);
-- today (docs: README "Spec sources and reconciliation"):
--   1 curated      catalog/accelerators.csv, typed from vendor datasheets (dense figures)
--   2 rocm         AMD's own documentation tables (vendor text)
--   3 mlperf       vendor-submitted MLPerf system descriptions
--   4 epoch        Epoch AI's curated ML hardware dataset (strong secondary)
--   5 wikipedia    Wikipedia GPU list tables
--   6 techpowerup  TechPowerUp GPU database (shader rates only, known bad data-center cells)
--
-- fills: 'all' = any metric; 'descriptive' = memory_gb, memory_bw_tbps and tdp_w only.
-- Throughput, die area and interconnect cells are filled only by vendor text (curated, rocm):
-- scraped sources label exactly those ambiguously (Epoch's one "FP16/BF16" tensor column,
-- MI250X "TF32" that is matrix FP32, H800 FP64 29.65 where NVIDIA cut it to ~1, per-die vs
-- summed-logic-die areas, per-direction vs bidirectional links). Every source is still
-- compared with the winner in spec_conflicts. A source missing here ranks last and fills
-- nothing.

select
    precedence.source,
    precedence.source_rank,
    precedence.source_tier,
    precedence.fills
from stg_curated__spec_source_precedence as precedence
