"""The shared raw layer's named errors (cluster/shared_raw.py), and how a failure of
PostgreSQL or S3 is told apart: a refused key (not retried) or a transient failure (retried
within the commit budget).
"""

from __future__ import annotations

from sqlalchemy.exc import DBAPIError, IntegrityError, ProgrammingError

from gpucost.catalog.secrets import redact


class SharedRawError(Exception):
    """Base of the shared raw layer's named errors."""


class SharedRawUnavailableError(SharedRawError):
    """PostgreSQL (the Iceberg catalog) or S3 (the data files) did not answer, or failed,
    within the settings' timeout, and kept failing for the commit budget."""


class SharedRawPermissionError(SharedRawError):
    """S3 refused the key: a reader key cannot write to the raw bucket, and a wrong key
    cannot read it. Not retried: waiting does not change a key's rights."""


class SharedRawCommitError(SharedRawError):
    """A commit kept conflicting with other writers for the whole commit budget. Nothing of
    the failed part is visible (a price append without its marker is invisible), so the
    caller may repeat `append_fetch` with the same fetch_id."""


class InvalidFetchError(SharedRawError, ValueError):
    """A fetch row or a price row that the tables cannot hold (an unknown column, a missing
    required value, an unknown status)."""


def one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return redact(f"{type(exc).__name__}: {text[:300]}")


_DENIED = ("ACCESS_DENIED", "Access Denied", "AccessDenied", "InvalidAccessKeyId",
           "SignatureDoesNotMatch", "Forbidden", "HTTP status 403")


def is_denied(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and any(mark in str(exc) for mark in _DENIED)


def transient(exc: BaseException) -> bool:
    """Whether waiting may help: the database or S3 unreachable or failing (not a refused
    key, not a programming error)."""
    if is_denied(exc):
        return False
    if isinstance(exc, DBAPIError):
        return exc.connection_invalidated or not isinstance(exc, ProgrammingError | IntegrityError)
    return isinstance(exc, OSError)
