"""The options of `gpucost estimate`, each defined once, and the subcommands built from them.

`gpucost estimate training|inference|rent-vs-buy|scenario` each take only their own options.
The flag forms of the README and docs stay as aliases on `gpucost estimate` itself
(`--params ...` = training, `--inference`, `--rent-vs-buy`, `--scenario ID`): that parser
holds every option, and `mixed_options` refuses the options of another mode than the one the
flags ask for, reading which mode owns an option from the subcommands (MODE_OPTIONS)."""

from __future__ import annotations

import argparse
from typing import Any

from gpucost.flows.cli.estimate.common import DEFAULT_GPUS, EstimateError, option
from gpucost.flows.cli.options import fraction, non_negative, positive, positive_int
from gpucost.flows.cli.output import EXIT_CODES, add_format_option

MODES = ("training", "inference", "rent-vs-buy", "scenario")
# per mode, the dests of its subcommand's options (filled when the parser is built)
MODE_OPTIONS: dict[str, set[str]] = {}


def _common(p: Any) -> list[Any]:
    return [p.add_argument(
        "--accelerator", "-a",
        help='id or any spelling in accelerator_aliases ("H100 SXM", "TPU v5p"); omitted: '
             "every accelerator with a price")]


def _model(p: Any) -> list[Any]:
    """The model and its cluster: options a training and an inference estimate both read."""
    return [
        p.add_argument("--params", type=positive, help="active parameters (e.g. 7e9)"),
        p.add_argument("--params-total", type=positive,
                       help="total parameters of a mixture of experts (default: --params)"),
        p.add_argument("--precision", default=None,
                       choices=("bf16", "fp16", "fp8", "fp4", "int8"),
                       help="training: bf16 (default) or fp8 peak and MFU; inference: weights"),
        p.add_argument("--gpus", type=positive,
                       help=f"GPUs in the cluster / replica (training default {DEFAULT_GPUS})"),
        p.add_argument("--price", type=positive,
                       help="a price per GPU-hour (USD) to add as the 'given' basis"),
        p.add_argument("--layers", type=positive,
                       help="layers (attention term; inference KV)"),
    ]


def _training(t: Any) -> list[Any]:
    return [
        t.add_argument("--tokens", type=positive,
                       help="training tokens (default: tokens-per-param x params, Chinchilla)"),
        t.add_argument("--tokens-per-param", type=positive),
        t.add_argument("--mfu", type=fraction, help="in-run MFU (default: per accelerator)"),
        t.add_argument("--goodput", type=fraction, help="wall-clock efficiency (default 0.9)"),
        t.add_argument("--days", type=positive,
                       help="cluster time: FLOPs = gpus x days at MFU and goodput"),
        t.add_argument("--flops", type=positive, help="training FLOPs, overriding 6ND"),
        t.add_argument("--d-model", type=positive, help="model width (attention term)"),
        t.add_argument("--seq-len", type=positive, help="sequence length (attention term)"),
        t.add_argument("--causal", action="store_true", default=None,
                       help="count causal attention (half the full-attention FLOPs)"),
        t.add_argument("--images", type=positive, help="training images (vision-language)"),
        t.add_argument("--tokens-per-image", type=positive, help="visual tokens per image"),
        t.add_argument("--vision-params", type=positive, help="vision tower parameters"),
        t.add_argument("--vision-frozen", action="store_true", default=None,
                       help="vision tower frozen (forward only: 2N per visual token)"),
        t.add_argument("--lm-frozen", action="store_true", default=None,
                       help="language model frozen, gradients pass through (4N per token)"),
        t.add_argument("--teacher-params", type=positive,
                       help="distillation teacher parameters"),
        t.add_argument("--recompute", choices=("none", "full"), default=None,
                       help="full activation recomputation: hardware FLOPs 8ND, MFU read as HFU"),
        t.add_argument("--micro-batch", type=positive,
                       help="sequences per GPU micro-batch for activation memory (default 1)"),
        *_show_all(t),
        t.add_argument("--pue", type=positive, help="power usage effectiveness (default 1.25)"),
        t.add_argument("--electricity", type=positive, help="USD per kWh (default 0.08)"),
        t.add_argument("--breakdown", action="append", metavar="PRESET",
                       help="full-bill breakdown under a cost preset (epoch_central, "
                            "epoch_final_run, seed_2023; 'all'); repeatable"),
    ]


def _show_all(p: Any) -> list[Any]:
    return [p.add_argument("--all", action="store_true", default=None,
                           help="also show platforms that cannot train the model, with the "
                                "reason")]


def _inference(i: Any) -> list[Any]:
    return [
        i.add_argument("--batch", type=positive, help="concurrent sequences (default 1)"),
        i.add_argument("--context", type=non_negative,
                       help="context tokens held in the KV cache per sequence (default: the "
                            "workload's input + half its output: --benchmark's measured output "
                            "and assumption inference_default_input_tokens, else "
                            "inference_default_input_tokens + half "
                            "inference_default_output_tokens = 1,536; 0 for none)"),
        i.add_argument("--kv-heads", type=positive, help="KV heads (GQA)"),
        i.add_argument("--head-dim", type=positive, help="head dimension"),
        i.add_argument("--kv-bytes-per-token", type=positive,
                       help="KV-cache bytes per token, instead of layers x KV heads x head dim"),
        i.add_argument("--kv-precision", choices=("bf16", "fp16", "fp8", "int8", "fp4")),
        i.add_argument("--bandwidth-utilisation", type=fraction,
                       help="achieved / peak memory bandwidth in decode (default 0.6)"),
        i.add_argument("--compute-utilisation", type=fraction,
                       help="achieved / peak FLOP/s (default: the accelerator's MFU default)"),
        i.add_argument("--compare", metavar="ACCELERATOR",
                       help="a second platform: how many times cheaper per million output "
                            "tokens it is than --accelerator"),
        i.add_argument("--benchmark", metavar="NAME",
                       help="the MLPerf benchmark of the workload (e.g. gpt-oss-120b, "
                            "llama2-70b; inference_throughput.benchmark): its measured output "
                            "length sets the default --context, its model's KV-cache shape "
                            "(inference_benchmarks) is used when --params is that model's and "
                            "no shape is given, and --compare prefers its measurements"),
        i.add_argument("--min-tokens-per-user", type=positive, metavar="N",
                       help="the measured throughput and cost while each user gets N tokens/s "
                            "(interpolated between measured points, never extrapolated; "
                            "--benchmark picks the model, else the measured models of --params)"),
        i.add_argument("--claim", type=positive,
                       help="a vendor's claimed ratio, set beside the supported one (--compare)"),
    ]


def _rent_vs_buy(r: Any) -> list[Any]:
    return [
        r.add_argument("--utilisation", type=fraction,
                       help="share of hours the owned accelerator is busy (default 1)"),
        r.add_argument("--years", type=positive,
                       help="useful life of the owned hardware (default: assumption "
                            "depreciation_years)"),
        r.add_argument("--gpus-per-instance", type=positive_int, metavar="N",
                       help="the commitments compared at this instance size only (GPUs per "
                            "instance; default every size with a commitment offer)"),
    ]


_TRAINING_HELP = ("Training cost: FLOPs (6 x active params x tokens, plus optional attention, "
                  "vision, distillation and recompute terms), GPU-hours at MFU of the dense peak"
                  " and goodput, wall-clock days, cost per price basis with its provider, "
                  "energy, peak power and USD per million tokens.")
_INFERENCE_HELP = "Roofline decode/prefill cost per million tokens."
_RENT_HELP = ("Owned cost per used GPU-hour against the cheapest observed rental, with the "
              "break-even utilisation, and each commitment term against on-demand of the same "
              "instance size (commitment_breakeven) (needs --accelerator).")
_SCENARIO_HELP = ("A scenario of catalog/training_scenarios.csv, as the training_cost mart "
                  "computes it (its own price, MFU and goodput).")
_DEFAULTS = " Unset figures take the catalog defaults, which are printed."


def _subcommand(modes: Any, mode: str, help: str, adders: tuple[Any, ...]) -> Any:
    p = modes.add_parser(mode, help=help, description=help + _DEFAULTS, epilog=EXIT_CODES,
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    dests = {a.dest for add in adders for a in add(p)}
    if mode == "scenario":
        dests.add(p.add_argument("scenario", metavar="ID", help="the scenario's id").dest)
    add_format_option(p)
    MODE_OPTIONS[mode] = dests | {"format"}
    p.set_defaults(estimate_mode=mode)
    return p


def build(sub: Any, run: Any) -> None:
    """Register `gpucost estimate` (subcommands, and the flag aliases) on the CLI's
    subparsers; `run` is the command."""
    e = sub.add_parser(
        "estimate",
        help="training, inference or rent-vs-buy cost on the published warehouse",
        description=_TRAINING_HELP + " --inference (estimate inference): " + _INFERENCE_HELP
        + _DEFAULTS + " Subcommands take only their own options; the flags --inference, "
        "--rent-vs-buy and --scenario ID are the same modes.",
    )
    e.set_defaults(func=run, estimate_mode=None)
    modes = e.add_subparsers(dest="estimate_subcommand", metavar="MODE")
    _subcommand(modes, "training", _TRAINING_HELP, (_common, _model, _training))
    _subcommand(modes, "inference", _INFERENCE_HELP, (_common, _model, _inference))
    _subcommand(modes, "rent-vs-buy", _RENT_HELP, (_common, _rent_vs_buy))
    _subcommand(modes, "scenario", _SCENARIO_HELP, (_show_all,))

    # the flag forms: every option on `gpucost estimate` itself
    _common(e)
    _model(e)
    add_format_option(e)
    t = e.add_argument_group("training")
    _training(t)
    t.add_argument("--scenario", metavar="ID", help=_SCENARIO_HELP)
    r = e.add_argument_group("rent vs buy (--rent-vs-buy)")
    r.add_argument("--rent-vs-buy", action="store_true", help=_RENT_HELP)
    _rent_vs_buy(r)
    i = e.add_argument_group("inference (--inference)")
    i.add_argument("--inference", action="store_true",
                   help="serving cost per million tokens instead of training cost")
    _inference(i)


_FLAGS = ("inference", "rent_vs_buy", "scenario")


def mode_of(args: argparse.Namespace) -> str:
    """The mode asked for: the subcommand, else the flags (training when none)."""
    if args.estimate_mode:
        if any(getattr(args, flag, None) for flag in _FLAGS if flag
               not in MODE_OPTIONS[args.estimate_mode]):
            raise EstimateError(f"`gpucost estimate {args.estimate_mode}` is the mode: "
                                "--inference, --rent-vs-buy and --scenario are its flag forms")
        return args.estimate_mode
    if args.rent_vs_buy:
        return "rent-vs-buy"
    if args.inference:
        return "inference"
    return "scenario" if args.scenario else "training"


def mixed_options(args: argparse.Namespace, mode: str) -> None:
    """The flag forms: options that belong to another mode than the one asked for are a
    contradiction (a subcommand simply lacks them)."""
    flag = mode.replace("-", "_")  # the flag that asked for the mode
    given = [k for k, v in vars(args).items() if v not in (None, False)
             and k not in ("func", "command", "estimate_mode", "estimate_subcommand", flag)]
    own = MODE_OPTIONS[mode]
    if mode == "rent-vs-buy":
        other = sorted(option(k) for k in given if k not in own)
        if other:
            raise EstimateError(f"{', '.join(other)} do not apply to --rent-vs-buy (it reads "
                                "--accelerator, --utilisation and --years)")
        return
    training = MODE_OPTIONS["training"] | MODE_OPTIONS["scenario"]
    inference = MODE_OPTIONS["inference"]
    if rent := [option(k) for k in given if k in MODE_OPTIONS["rent-vs-buy"] - training
                - inference]:
        raise EstimateError(f"{', '.join(rent)} apply only to --rent-vs-buy")
    if mode == "inference":
        if wrong := [option(k) for k in given if k not in inference]:
            raise EstimateError(f"{', '.join(wrong)} apply only to a training estimate, not to"
                                " --inference")
    elif wrong := [option(k) for k in given if k in inference - training]:
        raise EstimateError(f"{', '.join(wrong)} apply only to --inference, not to a training "
                            "estimate")
    if mode == "scenario" and (fixed := [option(k) for k in given if k not in own]):
        raise EstimateError(f"--scenario fixes the run; {', '.join(fixed)} would contradict it")
