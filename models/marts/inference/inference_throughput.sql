-- one row per measured benchmark result in force: an MLPerf Inference system x benchmark x
-- accuracy target x scenario x round (source mlperf_results), with the system's accelerators
-- and software and the per-accelerator throughput every measured cost is computed from.
--
-- Read it like the results tables of MLCommons: tokens are generated (output) tokens, for
-- the whole system under test; Offline is the throughput ceiling, Server and Interactive
-- hold p99 time-to-first-token and time-per-output-token limits (Interactive much tighter);
-- -99 and -99.9 are separate benchmarks. Compare like with like: same benchmark, scenario
-- and round, and where possible the same software_family.
--
-- columns:
--   round: MLPerf Inference round (v4.0, v4.1, v5.0, v5.1, v6.0)
--   division: closed (the same model and accuracy rules for everyone), open (model or
--     quantization changes allowed: not comparable to closed) or network
--   submitter: the submitting organisation's folder name
--   system: the system id in the results repository (results/<system>/, systems/<system>.json)
--   benchmark: the model benchmarked: llama2-70b, llama3.1-8b, llama3.1-405b, mixtral-8x7b,
--     deepseek-r1, gpt-oss-120b, gptj
--   accuracy_target: '99' or '99.9' (% of the reference accuracy; separate benchmarks), '' when the
--     benchmark has one target
--   scenario: Offline (throughput, no latency limit), Server (Poisson arrivals, p99 TTFT/TPOT
--     limits) or Interactive (Server with much tighter limits)
--   system_name: the submitter's name of the system; null for a curated system row
--   accelerator_name_raw: the accelerator as the submitter spells it
--   accelerator_id: the catalog accelerator it resolves to through catalog/aliases.csv; null when
--     none matches (the accelerator is not in the catalog)
--   accelerators_per_node [accelerators]: accelerators in one node, from the system description
--   number_of_nodes [nodes]: nodes of the system under test
--   accelerator_count [accelerators]: accelerators_per_node x number_of_nodes: the accelerators the
--     throughput was measured on (never read from the folder name, which may lie)
--   count_basis: where the count comes from: system_description (systems/<system>.json loaded by
--     the source) or curated (catalog/mlperf_systems.csv, from the system's result page)
--   availability: MLPerf's category: available, preview (hardware not yet available at
--     submission) or rdi (research, development, internal)
--   framework: the software stack as the submitter states it
--   software_family: the serving stack named first in framework: TensorRT-LLM, vLLM, SGLang,
--     PyTorch, Saxml; null when none is named
--   valid: LoadGen judged the run VALID
--   tokens_per_second [tokens/s]: generated tokens per second of the whole system (Offline
--     'Tokens per second', Server/Interactive 'Completed tokens per second'); null for a benchmark
--     measured in samples (GPT-J)
--   samples_per_second [samples/s]: completed samples (queries) per second of the whole system
--   output_tokens_per_sample [tokens]: tokens_per_second / samples_per_second: the mean output
--     length of the benchmark's dataset
--   tokens_per_second_per_accelerator [tokens/s per accelerator]: tokens_per_second /
--     accelerator_count
--   ttft_limit_ms [ms]: the p99 time-to-first-token limit of a Server/Interactive run; null for
--     Offline
--   tpot_limit_ms [ms]: the p99 time-per-output-token limit of a Server/Interactive run; null for
--     Offline
--   ttft_mean_ms [ms]: the measured mean time to first token of a Server/Interactive run (the
--     summary's Additional Stats); null for Offline
--   tpot_mean_ms [ms]: the measured mean time per output token of a Server/Interactive run;
--     null for Offline
--   tokens_per_second_per_user [tokens/s per user]: the generation speed one user sees: 1000 /
--     tpot_mean_ms where measured, else 1000 / tpot_limit_ms (a floor: p99 TPOT stays under the
--     limit); null for Offline (no per-user constraint)
--   interactivity_basis: 'measured' (mean TPOT in the summary) or 'tpot_bound' (the limit's
--     floor); null for Offline
--   fetch_id: the raw.fetches row that loaded the result (`gpucost explain fetch ID`)
--   source_url: where the result came from: the URL fetched, or the system's results folder in the
--     MLCommons results repository of that round for a replayed file
--   system_source_url: for a curated system row, the page its count was read from
--   round_published_on [date]: the day MLCommons published the round's results
--     (catalog/mlperf_rounds.csv); null for a round the catalog does not list
--   round_source_url: the page that gives that day
--   observed_at [timestamp (UTC)]: when the result was observed: its round's publication day
--     (a summary states no date of its own); the load time for a round the catalog does not list

with

measured as (

    select * from int_measured_throughput

)

select * from measured
order by measured.benchmark, measured.scenario, measured.round,
    measured.tokens_per_second_per_accelerator desc
