-- one row per row a parser or a plausibility gate refused, with the reason.

select * from raw.rejects
