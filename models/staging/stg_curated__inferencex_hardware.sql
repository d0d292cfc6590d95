-- one row per InferenceX results folder whose files do not state the hardware they ran on
-- (catalog/inferencex_hardware.csv): the accelerator and how many served the model, each with
-- the address of the file in the same repository that says so (a serve script). A serving
-- sweep point takes it when its repository_path starts with path_prefix.

select * from curated.inferencex_hardware
