-- one row per metric of one accelerator as one source states it (long format), per fetch.

select * from raw.spec_observations
