"""Fetch ids for the shared raw layer (cluster/shared_raw.py): time-ordered UUIDs version 7
(RFC 9562), made by each writer without a central sequence.
"""

from __future__ import annotations

import os
import secrets as _random
import threading
import time
import uuid
from datetime import UTC, datetime

_uuid_lock = threading.Lock()
_uuid_state = {"ms": -1, "counter": 0, "pid": -1}
# RFC 9562 section 6.2 method 1: rand_a (12 bits) and the top 30 bits of rand_b form a
# 42-bit counter, seeded at random in each new millisecond with its top bit clear (room to
# count up), so ids made within one millisecond by one process stay ordered; the low 32 bits
# stay random, so two processes (or machines) in the same millisecond still differ.
_COUNTER_BITS = 42


def uuid7() -> str:
    """A time-ordered UUID version 7 (RFC 9562) as text: 48-bit unix milliseconds, version
    7, a 42-bit per-millisecond counter seeded at random, variant 10, 32 random bits.

    Within a process every id sorts after the previous one, also when the clock steps back or
    more ids than the counter holds are made in one millisecond (the millisecond is then
    borrowed from the future, as RFC 9562 allows). Across processes ids are unique by their
    74 random bits and ordered to the millisecond."""
    with _uuid_lock:
        now_ms = time.time_ns() // 1_000_000
        state = _uuid_state
        if state["pid"] != os.getpid():  # a forked child must not continue its parent's run
            state.update(ms=-1, counter=0, pid=os.getpid())
        if now_ms > state["ms"]:
            state["ms"] = now_ms
            state["counter"] = _random.randbits(_COUNTER_BITS - 1)
        else:
            state["counter"] += 1
            if state["counter"] >> _COUNTER_BITS:
                state["ms"] += 1
                state["counter"] = _random.randbits(_COUNTER_BITS - 1)
        ms, counter = state["ms"], state["counter"]
    rand_a = counter >> 30
    rand_b = ((counter & ((1 << 30) - 1)) << 32) | _random.randbits(32)
    value = ((ms & ((1 << 48) - 1)) << 80) | (0x7 << 76) | (rand_a << 64) | (0b10 << 62) | rand_b
    return str(uuid.UUID(int=value))


def uuid7_time(value: str) -> datetime:
    """When a UUIDv7 was made (its millisecond), e.g. to see how old an unmarked fetch is."""
    return datetime.fromtimestamp((uuid.UUID(value).int >> 80) / 1000, tz=UTC)
