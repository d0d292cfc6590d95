"""The argparse `type=` of every numeric option of the CLI, and the cron check of `serve`.

A numeric option takes a finite number in its range: "nan", "inf", a negative number (and zero
where zero means nothing) are usage errors, one line and exit 2, said by the parser
(`gpucost sql: error: argument --timeout: must be a number >= 0 ...`). One place, so that no
command accepts `--timeout nan` (no time limit) or `--max-price nan` (no filter) again.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from datetime import datetime, timedelta

CRON_FIELDS = 5
CRON_HORIZON_YEARS = 5


def number(*, minimum: float = 0.0, zero: bool = True, maximum: float | None = None,
           integer: bool = False, what: str = "") -> Callable[[str], float]:
    """An argparse type: a finite number >= `minimum` (> it when `zero` is False and minimum
    is 0), <= `maximum` when given, whole when `integer`. `what` names the number in the
    message ("seconds")."""
    kind = "a whole number" if integer else "a number"
    bound = (f">= {minimum:g}" if zero or minimum != 0 else "> 0") + (
        f" and <= {maximum:g}" if maximum is not None else "")
    unit = f" ({what})" if what else ""

    def parse(text: str) -> float:
        try:
            value = float(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if integer and math.isfinite(value) and value != int(value):
            raise argparse.ArgumentTypeError(f"must be {kind} {bound}{unit}: {text!r}")
        ok = (math.isfinite(value) and value >= minimum and (zero or value != 0)
              and (maximum is None or value <= maximum))
        if not ok:
            raise argparse.ArgumentTypeError(f"must be {kind} {bound}{unit}: {text!r}")
        return int(value) if integer else value

    parse.__name__ = "integer" if integer else "number"
    return parse


positive = number(zero=False)  # > 0, finite
non_negative = number()  # >= 0, finite
positive_int = number(zero=False, integer=True)
non_negative_int = number(integer=True)


def fraction(text: str) -> float:
    """A fraction in (0, 1]."""
    value = positive(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be a fraction in (0, 1]: {text!r}")
    return value


def check_cron(cron: str, timezone: str = "UTC", now: datetime | None = None) -> None:
    """ValueError (one line) unless `cron` is a 5-field cron that fires within
    CRON_HORIZON_YEARS: 6- and 7-field crons (seconds, years) are refused (a 6-field one
    would refresh every second), and so is a cron that never fires ("0 0 31 2 *")."""
    from zoneinfo import ZoneInfo

    from prefect._vendor.croniter import croniter  # what Prefect's scheduler computes with

    fields = cron.split()
    if len(fields) != CRON_FIELDS:
        raise ValueError(
            f"Invalid cron {cron!r}: a cron has {CRON_FIELDS} fields (minute hour "
            f"day-of-month month day-of-week), this one has {len(fields)}")
    start = now or datetime.now(ZoneInfo(timezone))
    try:
        # day_or=True as prefect.schedules.Cron; no earlier than now, at most the horizon
        after = croniter(cron, start, day_or=True,
                         max_years_between_matches=CRON_HORIZON_YEARS).get_next(datetime)
    except Exception as exc:  # CroniterBadCronError, CroniterBadDateError, ValueError...
        message = " ".join(str(exc).split()) or type(exc).__name__
        if "find next date" in message:
            message = f"it never fires (no time within {CRON_HORIZON_YEARS} years matches it)"
        raise ValueError(f"Invalid cron {cron!r}: {message}") from None
    if after - start > timedelta(days=366 * CRON_HORIZON_YEARS):
        raise ValueError(f"Invalid cron {cron!r}: it never fires (no time within "
                         f"{CRON_HORIZON_YEARS} years matches it)")
