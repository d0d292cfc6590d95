"""Price alerts: rules kept beside the raw layer, evaluated at the end of every publish,
delivered through apprise (docs/alerts.md).

A rule (`gpucost alerts add NAME --gpu GPU[:N] --below PRICE --notify URL`) watches the
cheapest price per GPU-hour (USD) of one accelerator (resolved as `gpucost offers` and
`gpucost estimate -a` resolve a name: the macro resolve_accelerator), of one pricing model,
optionally in instances of exactly N GPUs (as `gpucost offers H100:8`). The offers that count
are those a buyer can rent now, as every statistic reads them: first-hand, USD, dated, fresh
(not stale), undisputed, a whole instance / GPU with its host / whole shape (price_kind).

The rules and what each last saw live in `<data dir>/alerts.json` (not in the published
file, which every publish rebuilds): written atomically (temporary file created exclusively,
fsync, rename; a symlink in its place is refused), mode 0600 (a notify URL may hold a token),
under its own lock (`.alerts.lock`), so `gpucost alerts add` and a publish never interleave.

A rule fires when its cheapest price goes from >= PRICE (or no matching offer) to < PRICE,
once per crossing: it is then "below" and stays quiet until a publish sees the price back at
>= PRICE (or no offer) and a later one below again. `add` takes the published warehouse as the
baseline: a price already below when the rule is added is reported by `add` and notifies
nothing until it crosses again. A failed delivery is one line in the publish's output, never a
failed publish, and is retried at the next publish while the price stays below.

Every URL shown anywhere (alerts list, publish lines, errors, logs) goes through
`redact_url`; apprise's own log records are kept out of every log handler while it delivers.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import math
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from gpucost.catalog.records import PRICING_MODELS as _VOCABULARY

log = logging.getLogger(__name__)

STATE_NAME = "alerts.json"
LOCK_NAME = ".alerts.lock"
STATE_VERSION = 1
# the pricing-model vocabulary (catalog/records.py), in a stable order for messages and --help
PRICING_MODELS = tuple(sorted(_VOCABULARY))
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
# price kinds a buyer can rent as priced (int_provider_prices): never a GPU-only price
RENTABLE_KINDS = ("instance", "gpu_with_host", "shape_per_gpu")
# schemes whose host and path are an address, not a token: shown with the host kept
_ADDRESS_SCHEMES = {"json", "jsons", "xml", "xmls", "form", "forms", "http", "https",
                    "mailto", "mailtos"}
# --notify env:NAME: the URL is read from the environment variable NAME at each delivery
# (the secret then stays out of alerts.json, the shell history and the process list)
ENV_REF = re.compile(r"^env:[A-Za-z_][A-Za-z0-9_]*$")


class AlertError(Exception):
    """A rule cannot be added or removed as asked (bad name, unknown GPU, bad URL...)."""


def notify_url(notify: str) -> str:
    """The URL a rule's --notify names: itself, or for `env:NAME` the variable's value
    (AlertError when it is not set)."""
    notify = str(notify).strip()
    if not ENV_REF.match(notify):
        return notify
    value = os.environ.get(notify[4:], "").strip()
    if not value:
        raise AlertError(f"--notify {notify}: the environment variable {notify[4:]} is not "
                         "set")
    return value


class AlertStateError(Exception):
    """alerts.json cannot be read or written safely (a symlink in its place, bad JSON)."""


# -- redaction -----------------------------------------------------------------------------

def redact_url(url: str) -> str:
    """A notify URL as it may be shown: credentials, tokens and query values masked.

    json://user:pass@host:8080/path?token=x -> json://***@host:8080/***?token=***; a scheme
    whose host or path carries the token (slack://T/B/C, discord://id/token, tgram://...)
    shows only its scheme: slack://***. `env:NAME` (the URL read from an environment
    variable) is shown as it is. Whatever cannot be parsed is ***."""
    if ENV_REF.match(str(url).strip()):
        return str(url).strip()
    try:
        parts = urlsplit(str(url).strip())
        scheme = parts.scheme.lower()
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return "***"
    if not scheme or not re.fullmatch(r"[a-z][a-z0-9+.-]*", scheme):
        return "***"
    if scheme not in _ADDRESS_SCHEMES:
        return f"{scheme}://***"
    out = f"{scheme}://" + ("***@" if "@" in parts.netloc else "")
    out += host if re.fullmatch(r"[A-Za-z0-9.\-\[\]:]*", host) else "***"
    if port is not None:
        out += f":{port}"
    if parts.path not in ("", "/"):
        out += "/***"
    elif parts.path == "/":
        out += "/"
    if parts.query:
        keys = [k for k, _ in parse_qsl(parts.query, keep_blank_values=True)]
        safe_keys = [k if re.fullmatch(r"[A-Za-z0-9_.+:-]{1,40}", k) else "***" for k in keys]
        out += "?" + "&".join(f"{k}=***" for k in safe_keys) if safe_keys else "?***"
    if parts.fragment:
        out += "#***"
    return out


def remember_url_secrets(url: str) -> None:
    """Register every part of a notify URL that may be a secret with catalog.secrets, so the
    process-wide log redaction (install_log_redaction: Prefect's handlers included) blanks it
    wherever it might appear."""
    from gpucost.catalog.secrets import install_log_redaction, remember_secret

    install_log_redaction()
    remember_secret(url)
    try:
        parts = urlsplit(url)
    except ValueError:
        return
    # an address (json://host:port/) is no secret: its credentials, path and query values
    # are; for a service whose host is a token (slack://T/B/C) the host is one too
    address = parts.scheme.lower() in _ADDRESS_SCHEMES
    userinfo = parts.netloc.rpartition("@")[0]
    for piece in ([userinfo, parts.password or "", parts.path.strip("/")]
                  + ([] if address else [parts.netloc])
                  + parts.path.split("/") + [v for _, v in parse_qsl(parts.query)]):
        if piece:
            remember_secret(piece)


def _redacted_text(text: str, url: str) -> str:
    """`text` (an error, a log line) with the URL and its secret parts masked."""
    try:
        parts = urlsplit(url)
        pieces = [url, parts.netloc, parts.password or "", parts.path.strip("/"),
                  *parts.path.split("/"), *(v for _, v in parse_qsl(parts.query)),
                  parts.username or ""]
    except ValueError:
        pieces = [url]
    for piece in sorted({p for p in pieces if p and len(p) >= 3}, key=len, reverse=True):
        text = text.replace(piece, "***")
    return " ".join(text.split())[:200]


# -- the state file ------------------------------------------------------------------------

def state_path(data_dir: Path) -> Path:
    return Path(data_dir) / STATE_NAME


@contextlib.contextmanager
def locked(data_dir: Path) -> Iterator[None]:
    """The alerts' own lock (blocking: its holders are short)."""
    data_dir = Path(data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(data_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def read_rules(data_dir: Path) -> list[dict[str, Any]]:
    """The rules in alerts.json ([] when there is none). A symlink or a file that is not our
    JSON is refused (AlertStateError), never followed or guessed at."""
    path = state_path(data_dir)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return []
    except OSError as exc:
        if path.is_symlink():
            raise AlertStateError(f"{path} is a symlink: refused (alert rules are read from a "
                                  "regular file only; remove the link)") from None
        raise AlertStateError(f"{path} cannot be read ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb") as fh:
        raw = fh.read(10_000_000)
    try:
        doc = json.loads(raw)
        rules = doc["rules"]
        if not isinstance(rules, list) or not all(isinstance(r, dict) for r in rules):
            raise TypeError("rules is not a list of objects")
    except (ValueError, KeyError, TypeError) as exc:
        raise AlertStateError(f"{path} is not a gpucost alerts file ({exc}); fix or remove "
                              "it") from None
    return rules


def write_rules(data_dir: Path, rules: list[dict[str, Any]]) -> None:
    """alerts.json replaced atomically: a temporary file created exclusively (a planted file
    or symlink of that name fails the write, it is never followed), fsynced, renamed over
    the old one (a symlink at alerts.json is replaced, not written through), directory
    fsynced. Mode 0600: a notify URL may hold a token."""
    from gpucost.warehouse.files import write_atomic

    path = state_path(data_dir)
    body = json.dumps({"version": STATE_VERSION, "rules": rules}, indent=1,
                      sort_keys=True, default=str).encode() + b"\n"
    write_atomic(path, body, mode=0o600)
    dfd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


# -- matching offers -----------------------------------------------------------------------

CHEAPEST_SQL = f"""
    select
        offers.accelerator_id,
        accelerators.name as accelerator_name,
        offers.gpu_count,
        offers.provider,
        offers.seller,
        offers.sku,
        offers.region,
        offers.pricing_model,
        offers.price_per_gpu_hour,
        offers.price_per_hour,
        offers.observed_at,
        offers.source,
        offers.source_url
    from gpu_offers as offers
    inner join accelerators on accelerators.accelerator_id = offers.accelerator_id
    where offers.accelerator_id = $accelerator_id
        and offers.pricing_model = $pricing_model
        and ($gpu_count is null or offers.gpu_count = $gpu_count)
        and offers.source_kind = 'first_hand'
        and offers.currency = 'USD'
        and offers.price_per_gpu_hour is not null
        and offers.observed_at_known
        and not coalesce(offers.is_stale, false)
        and not coalesce(offers.is_disputed, false)
        and list_contains({list(RENTABLE_KINDS)}, offers.price_kind)
    order by offers.price_per_gpu_hour, offers.observed_at desc, offers.provider,
        offers.sku, offers.region
    limit 1
"""


def cheapest(con: Any, rule: dict[str, Any]) -> dict[str, Any] | None:
    """The cheapest offer the rule watches in the published warehouse, or None."""
    cur = con.execute(CHEAPEST_SQL, {"accelerator_id": rule["accelerator_id"],
                                     "pricing_model": rule["pricing_model"],
                                     "gpu_count": rule.get("gpu_count")})
    row = cur.fetchone()
    if row is None:
        return None
    found = dict(zip([d[0] for d in cur.description], row, strict=True))
    if isinstance(found.get("observed_at"), datetime):
        found["observed_at"] = found["observed_at"].astimezone(UTC).isoformat()
    return found


def resolve_gpu(con: Any, gpu: str) -> tuple[str, str, int | None]:
    """GPU[:N] -> (accelerator_id, name, N or None), by `gpucost offers`' parser and the
    resolve_accelerator macro; several candidates and no exact match -> AlertError listing
    them (a rule watches one accelerator)."""
    from gpucost.flows.cli.offers import OffersError, parse_gpu, resolve

    try:
        name, count = parse_gpu(gpu)
    except OffersError as exc:
        raise AlertError(str(exc)) from None
    found = resolve(con, name)
    chosen = [r for r in found if r["resolved"]]
    if chosen:
        return chosen[0]["accelerator_id"], chosen[0]["name"], count
    if found:
        listed = "; ".join(f"{r['accelerator_id']} ({r['name']})" for r in found)
        raise AlertError(f"ambiguous accelerator {name!r}: it matches {len(found)} "
                         f"accelerators: {listed}; give one of them (its id or name)")
    raise AlertError(f"no accelerator matches {name!r} (`gpucost sql \"select "
                     "accelerator_id, name from accelerators\"` lists them)")


# -- rules ---------------------------------------------------------------------------------

def _apprise() -> Any:
    """The apprise module (imported on first use: a publish without rules never pays for it;
    its own DeprecationWarning about imghdr silenced)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import apprise
    return apprise


def validate_notify(url: str) -> None:
    """AlertError unless apprise accepts the URL (the error shows it redacted)."""
    apprise = _apprise()
    with _apprise_quiet():
        ok = apprise.Apprise().add(url)
    if not ok:
        raise AlertError(f"--notify {redact_url(url)}: not a notification URL apprise "
                         "understands (json://host:port/, slack://..., mailto://...; "
                         "https://github.com/caronc/apprise/wiki)")


def add_rule(data_dir: Path, *, name: str, gpu: str, below: float, notify: str,
             pricing_model: str = "on_demand") -> dict[str, Any]:
    """Add a rule; its baseline is the published warehouse (no notification for a price
    already below). Returns the stored rule."""
    from gpucost.warehouse.publish import connect_readonly

    if not NAME_RE.match(name or ""):
        raise AlertError(f"alert name {name!r}: letters, digits, '_', '.', '-' (at most 64, "
                         "starting with a letter or digit)")
    if not (isinstance(below, (int, float)) and math.isfinite(below) and below > 0):
        raise AlertError(f"--below must be a finite price in USD per GPU-hour above 0, not "
                         f"{below!r}")
    if pricing_model not in PRICING_MODELS:
        raise AlertError(f"--pricing-model must be one of {', '.join(PRICING_MODELS)}")
    url = notify_url(notify)
    remember_url_secrets(url)
    validate_notify(url)
    con = connect_readonly(data_dir)
    try:
        accelerator_id, accelerator_name, count = resolve_gpu(con, gpu)
        rule: dict[str, Any] = {
            "name": name, "gpu": gpu, "accelerator_id": accelerator_id,
            "accelerator_name": accelerator_name, "gpu_count": count,
            "pricing_model": pricing_model, "below": float(below), "notify": notify,
            "created_at": datetime.now(UTC).isoformat(),
        }
        now = cheapest(con, rule)
    finally:
        con.close()
    rule.update(_seen(rule, now))
    rule["pending"] = False
    with locked(data_dir):
        rules = read_rules(data_dir)
        if any(r.get("name") == name for r in rules):
            raise AlertError(f"an alert named {name!r} exists: `gpucost alerts remove {name}` "
                             "first")
        rules.append(rule)
        write_rules(data_dir, rules)
    return rule


def remove_rule(data_dir: Path, name: str) -> bool:
    """Remove the rule named `name`; False when there is none."""
    with locked(data_dir):
        rules = read_rules(data_dir)
        kept = [r for r in rules if r.get("name") != name]
        if len(kept) == len(rules):
            return False
        write_rules(data_dir, kept)
    return True


def list_rules(data_dir: Path) -> list[dict[str, Any]]:
    with locked(data_dir):
        return read_rules(data_dir)


def _seen(rule: dict[str, Any], offer: dict[str, Any] | None) -> dict[str, Any]:
    """What an evaluation records: the side of the threshold and the cheapest offer."""
    price = offer["price_per_gpu_hour"] if offer else None
    return {"is_below": price is not None and price < rule["below"], "last_price": price,
            "last_offer": offer, "evaluated_at": datetime.now(UTC).isoformat()}


def what(rule: dict[str, Any], offer: dict[str, Any] | None = None) -> str:
    """'NVIDIA H100 PCIe 80GB x8 on_demand'."""
    count = rule.get("gpu_count")
    size = f"x{count}" if count else (f"x{offer['gpu_count']:g}" if offer else "any size")
    return f"{rule['accelerator_name']} {size} {rule['pricing_model']}"


# -- evaluation and delivery ---------------------------------------------------------------

@dataclass
class Delivery:
    ok: bool
    reason: str = ""


def message(rule: dict[str, Any], offer: dict[str, Any],
            previous: float | None) -> tuple[str, str]:
    """(title, body) of a crossing: accelerator, GPU count, seller, sku, new and previous
    price per GPU-hour, the threshold, and the offer's source URL."""
    title = (f"gpucost alert {rule['name']}: {what(rule, offer)} at "
             f"{offer['price_per_gpu_hour']:.4g} USD/GPU-h, below {rule['below']:g}")
    was = f"{previous:.4g} USD/GPU-h" if previous is not None else "no matching offer"
    body = "\n".join([
        f"accelerator: {rule['accelerator_name']} ({rule['accelerator_id']})",
        f"GPU count: {offer['gpu_count']:g}",
        f"pricing model: {rule['pricing_model']}",
        f"seller: {offer.get('seller') or offer['provider']} (provider {offer['provider']})",
        f"sku: {offer['sku']}" + (f" (region {offer['region']})" if offer.get("region")
                                  else ""),
        f"new price: {offer['price_per_gpu_hour']:.4g} USD/GPU-h "
        f"({offer['price_per_hour']:.4g} USD/h per instance)",
        f"previous price: {was}",
        f"threshold: below {rule['below']:g} USD/GPU-h",
        f"observed at: {offer.get('observed_at')} (source {offer['source']})",
        f"source URL: {offer.get('source_url') or '-'}",
    ])
    return title, body


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        with contextlib.suppress(Exception):
            self.lines.append(record.getMessage())


@contextlib.contextmanager
def _apprise_quiet() -> Iterator[_Collect]:
    """apprise's log records collected here (its warnings make the reason of a failure) and
    kept from every other handler (a root or Prefect handler would see the URL's host)."""
    logger = logging.getLogger("apprise")
    handler = _Collect()
    saved = (logger.propagate, logger.level, list(logger.handlers))
    logger.handlers = [handler]
    logger.propagate = False
    logger.setLevel(logging.WARNING)
    import warnings

    try:
        with warnings.catch_warnings():  # its plugins load on first use: imghdr's warning
            warnings.simplefilter("ignore", DeprecationWarning)
            yield handler
    finally:
        logger.handlers = saved[2]
        logger.propagate = saved[0]
        logger.setLevel(saved[1])


def deliver(notify: str, title: str, body: str) -> Delivery:
    """Send one notification through apprise to a rule's --notify; never raises."""
    url = notify
    try:
        url = notify_url(notify)
        apprise = _apprise()
        remember_url_secrets(url)
        with _apprise_quiet() as heard:
            client = apprise.Apprise()
            if not client.add(url):
                return Delivery(False, "apprise does not understand the URL")
            ok = bool(client.notify(title=title, body=body))
        if ok:
            return Delivery(True)
        reason = "; ".join(heard.lines[-2:]) or "apprise reported a failure"
        return Delivery(False, _redacted_text(reason, url))
    except Exception as exc:  # a delivery failure is one line, never the publish's failure
        return Delivery(False, _redacted_text(f"{type(exc).__name__}: {exc}", url))


def evaluate(data_dir: Path) -> list[str]:
    """Evaluate every rule against the published warehouse; notify the crossings; return the
    lines for the publish's output (redacted). No rules: nothing read, nothing said."""
    from gpucost.warehouse.publish import connect_readonly

    data_dir = Path(data_dir)
    path = state_path(data_dir)
    if not path.exists() and not path.is_symlink():
        return []
    lines: list[str] = []
    with locked(data_dir):
        rules = read_rules(data_dir)
        if not rules:
            return []
        con = connect_readonly(data_dir)
        try:
            seen = []
            for rule in rules:
                try:
                    seen.append(cheapest(con, rule))
                except Exception as exc:  # a malformed rule: said, the others evaluated
                    seen.append(exc)
        finally:
            con.close()
        for rule, offer in zip(rules, seen, strict=True):
            if isinstance(offer, Exception):
                lines.append(f"alert {rule.get('name')!s}: not evaluated "
                             f"({type(offer).__name__}: {str(offer)[:120]})")
                continue
            was_below = bool(rule.get("is_below"))
            previous = rule.get("last_price")
            now = _seen(rule, offer)
            if not now["is_below"]:
                rule.update(now, pending=False)
                rule.pop("crossed_from", None)
                continue
            if was_below and not rule.get("pending"):
                rule.update(now)  # still below, already told: quiet
                continue
            # a crossing (or a crossing whose delivery failed at an earlier publish)
            crossed_from = rule.get("crossed_from") if was_below else previous
            rule.update(now, crossed_from=crossed_from)
            title, body = message(rule, offer, crossed_from)
            sent = deliver(rule["notify"], title, body)
            shown = redact_url(rule["notify"])
            if sent.ok:
                rule["pending"] = False
                rule["notified_at"] = datetime.now(UTC).isoformat()
                lines.append(f"alert {rule['name']}: {what(rule, offer)} at "
                             f"{offer['price_per_gpu_hour']:.4g} USD/GPU-h < {rule['below']:g}"
                             f" ({offer.get('seller') or offer['provider']} {offer['sku']}; "
                             f"was {'none' if crossed_from is None else f'{crossed_from:.4g}'})"
                             f": notified {shown}")
            else:
                rule["pending"] = True
                lines.append(f"alert {rule['name']}: delivery to {shown} failed "
                             f"({sent.reason}); the publish stands, retried at the next "
                             "publish while the price stays below")
        write_rules(data_dir, rules)
    for line in lines:
        log.info("%s", line)
    return lines


def evaluate_after_publish(data_dir: Path) -> list[str]:
    """`evaluate` for the publish step: whatever goes wrong is one line, never a failure."""
    try:
        return evaluate(data_dir)
    except Exception as exc:
        return [f"alerts not evaluated: {type(exc).__name__}: {' '.join(str(exc).split())[:200]}"]
