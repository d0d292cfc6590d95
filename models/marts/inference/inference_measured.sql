-- one row per valid measured result (inference_throughput, tokens measured) x price basis of
-- its accelerator (price_bases: observed rentals by provider, estimated committed-use, owned):
-- the measured cost of one million generated tokens. A measured result whose accelerator has
-- no price basis keeps one row with null price and cost, so it is seen unpriced rather than
-- lost.
--
--   usd_per_million_output_tokens = price_per_gpu_hour / (tokens_per_second_per_accelerator
--                                   x 3600) x 10^6
-- i.e. the system's hourly price over the tokens it generates in an hour. Offline is the
-- throughput ceiling; Server and Interactive are throughput under latency limits. The cost
-- counts only accelerator-hours: no idle time, no prompt tokens billed separately.
--
-- columns:
--   benchmark: the model benchmarked (inference_throughput.benchmark)
--   accuracy_target: '99', '99.9' or '' (inference_throughput.accuracy_target)
--   scenario: Offline, Server or Interactive (inference_throughput.scenario)
--   round: MLPerf Inference round
--   division: closed, open or network
--   submitter: the submitting organisation
--   system: the system id in the results repository
--   accelerator_id: the catalog accelerator measured
--   accelerator_name: the vendor's product name (accelerators.name)
--   accelerator_count [accelerators]: accelerators the throughput was measured on
--   software_family: TensorRT-LLM, vLLM, SGLang, PyTorch, ... (inference_throughput.software_family)
--   framework: the software stack as the submitter states it
--   availability: available, preview or rdi
--   comparable: closed division, available hardware and a valid run: the rows to rank and compare
--   tokens_per_second [tokens/s]: generated tokens per second of the whole system
--   tokens_per_second_per_accelerator [tokens/s per accelerator]: tokens_per_second /
--     accelerator_count
--   ttft_limit_ms [ms]: p99 time-to-first-token limit (Server/Interactive)
--   tpot_limit_ms [ms]: p99 time-per-output-token limit (Server/Interactive)
--   tokens_per_second_per_user [tokens/s per user]: the speed one user sees
--     (inference_throughput.tokens_per_second_per_user: measured, else the TPOT limit's floor)
--   interactivity_basis: 'measured' or 'tpot_bound' (inference_throughput.interactivity_basis)
--   observed_at [timestamp (UTC)]: when the throughput was measured: the round's publication
--     date (inference_throughput.observed_at)
--   price_basis: the price basis (price_bases.price_basis); null when the accelerator has none
--   basis_kind: observed, estimated or owned (price_bases.basis_kind)
--   provider: the provider behind the price (null for on_demand_median and owned)
--   price_source: the source of the price (price_bases.source)
--   sku: the offer behind the price; for owned, the system whose price it shares (price_bases.sku)
--   price_per_gpu_hour [USD per GPU-hour]: the basis price of one accelerator-hour
--   price_observed_at [timestamp (UTC)]: when the price was observed; null for owned
--   price_source_url: where the price was read (price_bases.source_url)
--   basis_note: how the basis price was formed (price_bases.basis_note); says when no offer of
--     the system's size exists and which size was used instead
--   gpus_per_instance [GPUs]: the GPUs one rented instance must hold to run the system: its
--     accelerators per node rounded up to 1, 2, 4 or 8; rental bases are taken over offers of
--     at least that size (price_bases_by_size)
--   basis_gpu_count [GPUs]: GPUs per instance of the offer behind the basis; null for the median,
--     owned and analyst bases
--   basis_fits_system: whether that offer holds gpus_per_instance GPUs; null where no offer
--   display_rank: which basis is shown when one price per result is shown (the report,
--     `estimate --inference`), lowest first: 0 an observed rental of a default basis
--     (price_bases.basis_rank 1), 1 the owned cost, 2 the analyst's 3-year rental survey
--     (rental_3y_survey); null for the other bases (queued_min, capacity_block_min, ...)
--   usd_per_million_output_tokens [USD per million tokens]: price_per_gpu_hour /
--     (tokens_per_second_per_accelerator x 3600) x 10^6
--   fetch_id: the raw.fetches row of the measured result
--   source_url: where the measured result came from (inference_throughput.source_url)

with

measured as (

    select * from inference_throughput
    where inference_throughput.valid
        and inference_throughput.tokens_per_second > 0
        and inference_throughput.accelerator_count > 0
        and inference_throughput.accelerator_id is not null

),

bases as (

    -- rental bases per instance size, owned and analyst costs at any size
    select * from price_bases_by_size

),

accelerator_specs as (

    select * from stg_curated__accelerators

),

final as (

    select
        ---------- the measurement
        measured.benchmark,
        measured.accuracy_target,
        measured.scenario,
        measured.round,
        measured.division,
        measured.submitter,
        measured.system,
        measured.accelerator_id,
        accelerator_specs.name as accelerator_name,
        measured.accelerator_count,
        measured.software_family,
        measured.framework,
        measured.availability,
        measured.division = 'closed' and measured.availability = 'available'
            as comparable,
        measured.tokens_per_second,
        measured.tokens_per_second_per_accelerator,
        measured.ttft_limit_ms,
        measured.tpot_limit_ms,
        measured.tokens_per_second_per_user,
        measured.interactivity_basis,
        measured.observed_at,

        ---------- the price
        bases.price_basis,
        bases.basis_kind,
        bases.provider,
        bases.source as price_source,
        bases.sku,
        bases.price_per_gpu_hour,
        bases.observed_at as price_observed_at,
        bases.source_url as price_source_url,
        bases.basis_note
            || case
                when bases.gpu_count < measured.gpus_per_instance
                    then '; no ' || bases.price_basis || ' offer of '
                        || measured.gpus_per_instance || ' or more GPUs per instance: the '
                        || 'closest, a ' || printf('%g', bases.gpu_count) || '-GPU instance'
                else ''
            end as basis_note,
        measured.gpus_per_instance,
        bases.gpu_count as basis_gpu_count,
        bases.gpu_count >= measured.gpus_per_instance as basis_fits_system,
        case
            when bases.basis_kind = 'observed' and bases.basis_rank = 1 then 0
            when bases.price_basis = 'owned' then 1
            when bases.price_basis = 'rental_3y_survey' then 2
        end as display_rank,

        ---------- the answer
        bases.price_per_gpu_hour
            / (measured.tokens_per_second_per_accelerator * 3600) * 1e6
            as usd_per_million_output_tokens,

        ---------- lineage of the measurement
        measured.fetch_id,
        measured.source_url

    from (
        select
            measured.*,
            -- the system is priced at offers of its own node: its accelerators per node rounded
            -- up to 1, 2, 4 or 8
            case
                when coalesce(measured.accelerators_per_node, 1) <= 1 then 1
                when measured.accelerators_per_node <= 2 then 2
                when measured.accelerators_per_node <= 4 then 4
                else 8
            end as gpus_per_instance,
            row_number() over () as measured_row
        from measured
    ) as measured
    left join bases
        on bases.accelerator_id = measured.accelerator_id
        and (bases.min_gpus_per_instance is null
            or bases.min_gpus_per_instance <= measured.gpus_per_instance)
    left join accelerator_specs
        on accelerator_specs.accelerator_id = measured.accelerator_id
    -- per basis, the offers of the system's size, else the closest smaller size
    qualify row_number() over (
        partition by measured.measured_row, bases.price_basis
        order by bases.min_gpus_per_instance desc nulls last
    ) = 1

)

select * from final
order by final.benchmark, final.scenario, final.price_basis nulls last,
    final.usd_per_million_output_tokens, final.round desc
