-- one row per benchmarked system description (raw.system_descriptions), per fetch: the
-- accelerator as the submitter spells it, how many per node and how many nodes, availability
-- and software stack.

select * from raw.system_descriptions
