-- returns one row per accelerator a user's spelling may name (`gpucost offers NAME`,
-- `gpucost estimate -a NAME`, `gpucost.offers(NAME)` all call this macro): the candidates and
-- how each matched. Spellings are compared on normalised keys (lowercase letters and digits
-- only), so "H100 SXM", "h100-sxm" and "H100_SXM" are one spelling.
--
-- How a spelling matches (match_rank; an accelerator matched several ways keeps its best):
--   1 accelerator_id: the key of an accelerator_id ("nvidia-a100-pcie-80gb")
--   2 name: the key of the catalog name ("NVIDIA A100 PCIe 80GB")
--   3 alias: an alias_key of accelerator_aliases (catalog/aliases.csv rows for any provider,
--     ids and names; a key two accelerators claim is not there): "H100 SXM", "TPU v5p"
--   4 family: every token of the spelling (split on anything but letters and digits) is a
--     whole token of the accelerator's name or id: "H100" -> every H100 (SXM5, PCIe, NVL),
--     "A100 80GB" -> A100 SXM4 80GB and A100 PCIe 80GB. Whole tokens, never substrings:
--     "H200" never matches GH200, "L40" never L40S, "H100 SXM" not the "sxm5" token.
--
-- The rule when a spelling names several accelerators:
--   * a listing (`gpucost offers`) shows every candidate: "H100" lists every H100 variant,
--     "A100 80GB" both the SXM4 and the PCIe card;
--   * where one accelerator is needed (`gpucost estimate -a`), the answer is the row with
--     resolved = true: the exact match (ranks 1-3 name one accelerator each, the best rank
--     wins), else the family match when it is unique; several family candidates and no exact
--     match = ambiguous (no row resolved: the CLI exits 2 listing the candidates); no row =
--     unknown.
--
-- columns:
--   accelerator_id, name: the candidate (accelerators)
--   matched_by: accelerator_id, name, alias or family (the best way this one matched)
--   matched_spelling: the spelling it matched (the id, the catalog name or the alias as written;
--     for a family match the catalog name)
--   match_rank: 1 (accelerator_id) .. 4 (family)
--   resolved: true for the one accelerator the spelling names when one is needed

create or replace macro resolve_accelerator(spelling) as table
with

wanted as (

    select
        name_key(coalesce(spelling, '')) as wanted_key,
        list_filter(regexp_split_to_array(lower(coalesce(spelling, '')), '[^a-z0-9]+'),
                    lambda token: token <> '') as wanted_tokens

),

specs as (

    select
        specs_all.accelerator_id,
        specs_all.name,
        name_key(specs_all.accelerator_id) as id_key,
        name_key(coalesce(specs_all.name, '')) as name_key,
        list_filter(
            regexp_split_to_array(lower(specs_all.accelerator_id), '[^a-z0-9]+')
            || regexp_split_to_array(lower(coalesce(specs_all.name, '')), '[^a-z0-9]+'),
            lambda token: token <> '') as spec_tokens
    from accelerators as specs_all

),

matches as (

    select specs.accelerator_id, 'accelerator_id' as matched_by,
        specs.accelerator_id as matched_spelling, 1 as match_rank
    from specs, wanted
    where wanted.wanted_key <> '' and specs.id_key = wanted.wanted_key

    union all

    select specs.accelerator_id, 'name', specs.name, 2
    from specs, wanted
    where wanted.wanted_key <> '' and specs.name_key = wanted.wanted_key

    union all

    select spellings.accelerator_id, 'alias', spellings.alias, 3
    from accelerator_aliases as spellings, wanted
    where wanted.wanted_key <> '' and spellings.alias_key = wanted.wanted_key

    union all

    select specs.accelerator_id, 'family', specs.name, 4
    from specs, wanted
    where len(wanted.wanted_tokens) > 0
        and list_has_all(specs.spec_tokens, wanted.wanted_tokens)

),

best as (

    select
        matches.accelerator_id,
        arg_min(matches.matched_by, matches.match_rank) as matched_by,
        arg_min(matches.matched_spelling, matches.match_rank) as matched_spelling,
        min(matches.match_rank) as match_rank
    from matches
    group by matches.accelerator_id

),

top_rank as (

    select
        min(best.match_rank) as top_match_rank,
        count(*) filter (where best.match_rank = (select min(b.match_rank) from best as b))
            as n_top
    from best

),

final as (

    select
        best.accelerator_id,
        specs.name,
        best.matched_by,
        best.matched_spelling,
        best.match_rank,
        best.match_rank = top_rank.top_match_rank and top_rank.n_top = 1 as resolved
    from best
    inner join specs on specs.accelerator_id = best.accelerator_id
    cross join top_rank

)

select * from final
order by final.match_rank, final.accelerator_id
