-- one row per coefficient of the calibrated MFU model (catalog/mfu_model.csv, written by
-- `python scripts/mfu_fit.py` from the validation mart), typed.

select * from curated.mfu_model
