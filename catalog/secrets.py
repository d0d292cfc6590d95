"""API keys come from the environment only, and never leave the process in clear text.

`api_key(source)` reads GPUCOST_<SOURCE>_API_KEY. Every key read is remembered so that
`redact()` can blank it out of any text that is about to be logged, stored (raw.fetches
errors, payload URLs) or shown (run summaries, Prefect artifacts).
`install_log_redaction()` applies the same redaction to every log record.
"""

from __future__ import annotations

import logging
import os
import threading

_lock = threading.Lock()
_known: set[str] = set()
MASK = "***"
MIN_SECRET_LEN = 6  # shorter values would blank out ordinary words


def remember_secret(value: str) -> str:
    """Register `value` (a key, a password from settings) so that redact() blanks it;
    returns it unchanged. Values shorter than MIN_SECRET_LEN are not registered."""
    if len(value) >= MIN_SECRET_LEN:
        with _lock:
            _known.add(value)
    return value


def api_key(source: str) -> str | None:
    """The API key of `source` from GPUCOST_<SOURCE>_API_KEY, or None when unset."""
    value = os.environ.get(f"GPUCOST_{source.upper()}_API_KEY", "").strip()
    return remember_secret(value) if value else None


def remember_url_credentials(url: str) -> str:
    """Register the credentials inside `url` (`http://user:password@host/...`, e.g. in a
    GPUCOST_SOURCE_URL_<NAME> override) as secrets, so that every redacted text shows
    `http://***@host/...`; returns `url` unchanged (the request still needs them)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        userinfo = parts.netloc.rpartition("@")[0] if "@" in parts.netloc else ""
        password = parts.password or ""
    except ValueError:
        return url
    with _lock:
        if userinfo:
            _known.add(userinfo)
        if len(password) >= MIN_SECRET_LEN:
            _known.add(password)
    return url


def redact(text: str) -> str:
    """`text` with every known secret replaced by ***."""
    if not text:
        return text
    with _lock:
        secrets = sorted(_known, key=len, reverse=True)
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


_installed = False


def install_log_redaction() -> None:
    """Redact known secrets from every log record created from now on, by any logger.

    Wraps the log record factory, so records of every library and handler (Prefect's API
    log handler included) are clean before any handler sees them.
    """
    global _installed
    with _lock:
        if _installed:
            return
        _installed = True
    previous = logging.getLogRecordFactory()

    def factory(*args: object, **kwargs: object) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        if _known:
            try:
                message = record.getMessage()
            except Exception:  # a malformed record: leave it to logging to report
                return record
            clean = redact(message)
            if clean != message:
                record.msg, record.args = clean, None
        return record

    logging.setLogRecordFactory(factory)
