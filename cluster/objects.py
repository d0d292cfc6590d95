"""The object store (S3: SeaweedFS on a small cluster) as the cluster's shared store.

`ObjectStore(settings, writer=...)` is a thin layer over `pyarrow.fs.S3FileSystem` with the
writer's key (fetchers, the publisher) or the reader's (analysts, dashboards: read-only on the
published bucket). Every failure is one of three named errors with a one-line message, secrets
redacted, so a caller can tell "your key may not do that" from "the store is down" from "no
such object":

* ObjectStoreDeniedError: 403 / AccessDenied (the reader key writing, a wrong key or secret);
* ObjectStoreUnavailableError: connection refused, timeout, 5xx (a dead server);
* ObjectNotFoundError: no such key or bucket.

Timeouts. Every request gives up after `settings.timeout_s` of silence (curl's connect timeout
and low-speed limit, which pyarrow sets from connect_timeout / request_timeout), so a store
whose volume server is dead fails a read in about timeout_s. A write (a request with a body)
takes up to about 6 s longer: curl averages the transfer speed over its last 5 seconds, and the
body just sent keeps that average above the limit for a while (measured: timeout_s + 6 s, the
same against a server that accepts and never answers). pyarrow itself makes one attempt
(a retry of a timed-out request would double that); a request that failed *fast* with a
transient error (5xx, reset) is tried once more here, so a blip does not fail a publish but a
dead server is not waited for twice.

Reads (GET) have a minimum transfer rate. curl's low-speed limit, the only one pyarrow sets,
is 1 byte per second: a server that trickles a few bytes a second holds a read for ever. So
reads go through botocore instead, the body read as it arrives, and a read that brings fewer
than `settings.min_rate_kbs` KiB/s over any window of timeout_s is given up
(ObjectStoreUnavailableError, "slower than ..."). A read may also be given a size cap
(`max_bytes`): an object whose Content-Length is larger is refused before a byte of its body
is read, and no more than the cap is ever read (CURRENT, a small record, is read so).

Payloads are content-addressed (`put_payload`): `raw/<source>/<yyyy-mm-dd>/<sha256>.<ext>` in
the raw bucket, uploaded only when absent, so fetching the same bytes again adds no object.

Readers elsewhere (pandas, DuckDB 2.0 through `register_filesystem`) use `s3_filesystem`, an
s3fs filesystem on the same endpoint and key.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any, TypeVar

from gpucost.catalog.secrets import redact
from gpucost.cluster.settings import ClusterSettings

T = TypeVar("T")
CHUNK = 8 << 20  # bytes per read/write of a streamed transfer
# a transient failure faster than this share of the timeout is tried once more (a 5xx, a
# reset connection); a timeout is not: the store is down, waiting twice helps no one
FAST_FAILURE_SHARE = 0.5
RETRY_PAUSE_S = 0.2
READ_CHUNK = 1 << 20  # at most this many bytes per socket read of a GET's body
FIELDS_RATE = "GPUCOST_S3_MIN_RATE_KBS"


class ObjectStoreError(Exception):
    """An object store call failed (the base of the named errors below)."""


class ObjectStoreDeniedError(ObjectStoreError):
    """The store refused the key (403 / AccessDenied): the reader key writing, a wrong key or
    secret, a bucket the key has no right to."""


class ObjectStoreUnavailableError(ObjectStoreError):
    """The store did not answer in time, refused the connection or failed (5xx)."""


class ObjectNotFoundError(ObjectStoreError):
    """No such object (or no such bucket)."""


class ObjectTooLargeError(ObjectStoreError):
    """The object is larger than the caller's cap (refused before or while reading it)."""


class _TooSlowError(OSError):
    """The body came slower than the minimum rate (reported as the store unavailable)."""


class _LocalFileError(Exception):
    """A local file's error inside a transfer (disk full, no permission): raised as itself,
    never taken for the store's."""

    def __init__(self, exc: OSError):
        self.exc = exc


def _local(fn: Callable[[], T]) -> T:
    try:
        return fn()
    except OSError as exc:
        raise _LocalFileError(exc) from exc


_DENIED = ("ACCESS_DENIED", "ACCESSDENIED", "INVALID_ACCESS_KEY_ID", "INVALIDACCESSKEYID",
           "SIGNATURE_DOES_NOT_MATCH", "SIGNATUREDOESNOTMATCH", "FORBIDDEN", "HTTP 403",
           "HTTP STATUS 403")
_NOT_FOUND = ("NO_SUCH_KEY", "NOSUCHKEY", "NO_SUCH_BUCKET", "NOSUCHBUCKET", "PATH DOES NOT EXIST",
              "RESOURCE_NOT_FOUND")
_UNAVAILABLE = ("NETWORK_CONNECTION", "CURLCODE", "TIMEOUT", "TIMED OUT", "INTERNAL_FAILURE",
                "SERVICE_UNAVAILABLE", "SLOW_DOWN", "REQUEST_TIMEOUT", "COULD NOT CONNECT",
                "CONNECTION REFUSED", "CONNECTION RESET", "HTTP 5", "INTERNAL ERROR",
                "BAD GATEWAY", "UNKNOWN (100)")
_REQUEST_ID = re.compile(r"\s*\(Request ID: [^)]*\)")
_WHEN = re.compile(r"^When [^:]{0,200}?in bucket '[^']*': ")  # the key and bucket: said already


def classify(exc: BaseException) -> type[ObjectStoreError]:
    """Which named error an exception of pyarrow (or botocore / s3fs) stands for.

    pyarrow raises OSError (FileNotFoundError for a missing key) with the AWS SDK's error
    name in the text: "AWS Error ACCESS_DENIED during PutObject operation", "AWS Error
    NETWORK_CONNECTION ... curlCode: 7, Could not connect", "curlCode: 28, Timeout was
    reached", "AWS Error INTERNAL_FAILURE" (a 500)."""
    if isinstance(exc, FileNotFoundError):
        return ObjectNotFoundError
    if isinstance(exc, _TooSlowError):
        return ObjectStoreUnavailableError
    if isinstance(exc, PermissionError):
        return ObjectStoreDeniedError
    if isinstance(exc, (TimeoutError, ConnectionError)):
        return ObjectStoreUnavailableError
    text = str(exc).upper()
    if any(s in text for s in _DENIED):
        return ObjectStoreDeniedError
    if any(s in text for s in _NOT_FOUND):
        return ObjectNotFoundError
    if any(s in text for s in _UNAVAILABLE):
        return ObjectStoreUnavailableError
    return ObjectStoreError


def _os_error(exc: BaseException) -> OSError:
    """botocore's and urllib3's errors as the OSError kinds `classify` reads: NoSuchKey / 404
    is FileNotFoundError, AccessDenied / 403 PermissionError, the rest an OSError with the
    text (a timeout, a refused connection, a 5xx)."""
    if isinstance(exc, OSError):
        return exc
    text = " ".join(str(exc).split())
    response = getattr(exc, "response", None)
    if isinstance(response, dict):
        code = str(response.get("Error", {}).get("Code", ""))
        status = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        if code in ("NoSuchKey", "NoSuchBucket", "404") or status == 404:
            return FileNotFoundError(text)
        if code in ("AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "403") \
                or status == 403:
            return PermissionError(text)
        if isinstance(status, int) and status >= 500:
            return OSError(f"HTTP {status}: {text}")
    return OSError(f"{type(exc).__name__}: {text}")


def _detail(exc: BaseException) -> str:
    text = _WHEN.sub("", _REQUEST_ID.sub("", " ".join(str(exc).split())))
    return redact(text)[:300]


def _endpoint_parts(endpoint: str) -> tuple[str, str]:
    """(scheme, host:port) of an endpoint given with or without its scheme."""
    endpoint = endpoint.strip().rstrip("/")
    if "://" in endpoint:
        scheme, _, rest = endpoint.partition("://")
        return scheme.lower(), rest
    return "http", endpoint


def endpoint_url(settings: ClusterSettings) -> str:
    """The endpoint as a URL (scheme included: s3fs and botocore need it)."""
    scheme, host = _endpoint_parts(settings.s3_endpoint)
    return f"{scheme}://{host}"


def _credentials(settings: ClusterSettings, writer: bool) -> tuple[str, str]:
    if writer:
        settings.require("s3_endpoint", "writer_key", "writer_secret")
        return settings.writer_key, settings.writer_secret
    settings.require("s3_endpoint", "reader_key", "reader_secret")
    return settings.reader_key, settings.reader_secret


def payload_key(source: str, day: date | str, sha256: str, ext: str) -> str:
    """The object key of a payload's bytes: the same path as under the local data dir
    (warehouse/store.py payload_relpath)."""
    from gpucost.warehouse.store import payload_relpath

    return payload_relpath(source, day if isinstance(day, date) else date.fromisoformat(day),
                           sha256, ext)


class ObjectStore:
    """One endpoint, one key: the writer's (`writer=True`) or the reader's."""

    def __init__(self, settings: ClusterSettings, *, writer: bool):
        from pyarrow import fs as pafs

        key, secret = _credentials(settings, writer)
        scheme, host = _endpoint_parts(settings.s3_endpoint)
        self.settings = settings
        self.writer = writer
        self.role = "writer" if writer else "reader"
        self.access_key = key
        self.endpoint = f"{scheme}://{host}"
        self._s3: Any = None  # the botocore client of the reads (_client)
        self.fs = pafs.S3FileSystem(
            access_key=key, secret_key=secret, region=settings.s3_region,
            endpoint_override=host, scheme=scheme,
            connect_timeout=settings.timeout_s, request_timeout=settings.timeout_s,
            retry_strategy=pafs.AwsStandardS3RetryStrategy(max_attempts=1))

    def __repr__(self) -> str:
        return f"ObjectStore({self.endpoint}, {self.role} key {self.access_key})"

    # -- error handling ------------------------------------------------------------------

    def _call(self, what: str, bucket: str, key: str, fn: Callable[[], T]) -> T:
        """Run one store operation; a failure becomes a named error (one line, redacted).
        A transient failure that came fast is tried once more (module docstring)."""
        for attempt in (1, 2):
            start = time.monotonic()
            try:
                return fn()
            except ObjectStoreError:
                raise
            except _LocalFileError as local:
                raise local.exc from None
            except (OSError, ValueError) as exc:
                kind = classify(exc)
                fast = time.monotonic() - start < FAST_FAILURE_SHARE * self.settings.timeout_s
                if kind is ObjectStoreUnavailableError and fast and attempt == 1:
                    time.sleep(RETRY_PAUSE_S)
                    continue
                raise self._error(kind, what, bucket, key, exc) from None
        raise AssertionError("unreachable")

    def _error(self, kind: type[ObjectStoreError], what: str, bucket: str, key: str,
               exc: BaseException) -> ObjectStoreError:
        where = f"s3://{bucket}/{key}" if key else f"s3://{bucket}"
        if kind is ObjectStoreDeniedError:
            text = str(exc).upper()
            if any(s in text for s in ("SIGNATURE", "INVALID_ACCESS_KEY", "INVALIDACCESSKEY")):
                hint = "the key or its secret is wrong"
            elif self.writer:
                hint = "a wrong key or secret, or a bucket this key has no right to"
            else:
                hint = ("a wrong key or secret, or not a read of the published bucket: "
                        "all the reader key may do")
            why = f"access denied to the {self.role} key {self.access_key!r} ({hint})"
        elif isinstance(exc, _TooSlowError):
            why = f"the object store at {self.endpoint} is too slow"
        elif kind is ObjectStoreUnavailableError:
            why = (f"the object store at {self.endpoint} is unavailable (no answer within "
                   f"{self.settings.timeout_s:g} s, connection refused or a server error)")
        elif kind is ObjectNotFoundError:
            why = "no such object"
        else:
            why = "failed"
        return kind(redact(f"{what} {where}: {why}: {_detail(exc)}"))

    # -- operations ----------------------------------------------------------------------

    def put_bytes(self, bucket: str, key: str, data: bytes) -> None:
        """Write `data` as the object (whole or not at all: an S3 object appears on completion)."""
        def run() -> None:
            with self.fs.open_output_stream(f"{bucket}/{key}", compression=None) as out:
                out.write(data)

        self._call("writing", bucket, key, run)

    def put_file(self, bucket: str, key: str, path: Path,
                 progress: Callable[[int], None] | None = None) -> int:
        """Stream the local file at `path` into the object (multipart: never held in memory;
        the object appears only once every part is in). `progress(bytes so far)` is called
        after each chunk. Returns the bytes written."""
        def run() -> int:
            done = 0
            with _local(lambda: open(path, "rb")) as src, \
                    self.fs.open_output_stream(f"{bucket}/{key}", compression=None) as out:
                while chunk := _local(lambda: src.read(CHUNK)):
                    out.write(chunk)
                    done += len(chunk)
                    if progress:
                        progress(done)
            return done

        return self._call("writing", bucket, key, run)

    # -- reads: botocore, the body read as it comes, with a minimum rate and a size cap ---

    def _client(self) -> Any:
        """A botocore S3 client on the same endpoint and key (made once, on the first read):
        one attempt, timeout_s to connect and per socket read, path-style addressing."""
        if self._s3 is None:
            import botocore.session
            from botocore.config import Config

            key, secret = _credentials(self.settings, self.writer)
            self._s3 = botocore.session.get_session().create_client(
                "s3", endpoint_url=self.endpoint, region_name=self.settings.s3_region,
                aws_access_key_id=key, aws_secret_access_key=secret,
                config=Config(connect_timeout=self.settings.timeout_s,
                              read_timeout=self.settings.timeout_s,
                              retries={"total_max_attempts": 1},
                              s3={"addressing_style": "path"}))
        return self._s3

    def _stream(self, bucket: str, key: str, sink: Callable[[bytes], None],
                max_bytes: int | None) -> int:
        """GET the object into `sink` chunk by chunk as it arrives; returns its size. Raises
        ObjectTooLargeError past `max_bytes` (before reading when Content-Length says so),
        _TooSlowError below the minimum rate, OSError kinds for botocore's errors. Without
        botocore (the cluster extra not installed: `refresh --upload` from the base venv) the
        same loop reads pyarrow's input stream, the size cap checked on the object's listed
        size first."""
        if importlib.util.find_spec("botocore") is None:
            return self._stream_arrow(bucket, key, sink, max_bytes)
        try:
            response = self._client().get_object(Bucket=bucket, Key=key)
        except Exception as exc:
            raise _os_error(exc) from None
        body = response["Body"]
        raw = getattr(body, "_raw_stream", body)
        try:
            return self._pump(bucket, key, getattr(raw, "read1", raw.read), sink, max_bytes,
                              response.get("ContentLength"), wrap=_os_error)
        finally:
            body.close()

    def _stream_arrow(self, bucket: str, key: str, sink: Callable[[bytes], None],
                      max_bytes: int | None) -> int:
        """_stream through pyarrow's S3 filesystem (no botocore)."""
        from pyarrow import fs as pafs

        info = self.fs.get_file_info(f"{bucket}/{key}")
        if info.type != pafs.FileType.File:
            raise FileNotFoundError(f"Path does not exist '{bucket}/{key}'")
        with self.fs.open_input_stream(f"{bucket}/{key}") as stream:
            return self._pump(bucket, key, stream.read, sink, max_bytes, int(info.size),
                              wrap=lambda exc: exc)

    def _pump(self, bucket: str, key: str, read: Callable[[int], bytes],
              sink: Callable[[bytes], None], max_bytes: int | None, length: int | None,
              wrap: Callable[[BaseException], BaseException]) -> int:
        """Read chunks until the end into `sink`, with the size cap and the minimum rate."""
        if max_bytes is not None and length is not None and length > max_bytes:
            raise ObjectTooLargeError(
                f"reading s3://{bucket}/{key}: {length} bytes, more than the {max_bytes} "
                "allowed: refused unread")
        rate = self.settings.min_rate_kbs * 1024
        window_s = self.settings.timeout_s
        size = 0
        mark_t, mark_size = time.monotonic(), 0
        while True:
            try:
                chunk = read(READ_CHUNK)
            except Exception as exc:
                raise wrap(exc) from None
            if not chunk:
                break
            size += len(chunk)
            if max_bytes is not None and size > max_bytes:
                raise ObjectTooLargeError(
                    f"reading s3://{bucket}/{key}: more than the {max_bytes} bytes "
                    "allowed: given up")
            sink(bytes(chunk))
            now = time.monotonic()
            if now - mark_t >= window_s:
                got = size - mark_size
                if got < rate * (now - mark_t):
                    raise _TooSlowError(
                        f"slower than {self.settings.min_rate_kbs:g} KiB/s ({got} bytes in "
                        f"the last {now - mark_t:.1f} s, {size} in all): given up "
                        f"({FIELDS_RATE} sets the minimum)")
                mark_t, mark_size = now, size
        if length is not None and size != length:
            raise OSError(f"connection reset: {size} of {length} bytes read")
        return size

    def get_bytes(self, bucket: str, key: str, max_bytes: int | None = None) -> bytes:
        """The object's bytes (at most `max_bytes`: a larger object is ObjectTooLargeError,
        refused unread when its Content-Length says so)."""
        def run() -> bytes:
            parts: list[bytes] = []
            self._stream(bucket, key, parts.append, max_bytes)
            return b"".join(parts)

        return self._call("reading", bucket, key, run)

    def download(self, bucket: str, key: str, path: Path,
                 max_bytes: int | None = None) -> tuple[int, str]:
        """Copy the object to `path`: streamed into a temporary name beside it, fsynced, then
        renamed over `path` (os.replace), so `path` is never a partial file. Returns (size,
        sha256 hex) of what was written. `max_bytes`: as get_bytes."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".part-{os.getpid()}-{os.urandom(4).hex()}-{path.name}")

        def run() -> tuple[int, str]:
            digest = hashlib.sha256()
            with _local(lambda: open(tmp, "wb")) as out:
                def sink(chunk: bytes) -> None:
                    _local(lambda: out.write(chunk))
                    digest.update(chunk)

                size = self._stream(bucket, key, sink, max_bytes)
                _local(out.flush)
                _local(lambda: os.fsync(out.fileno()))
            return size, digest.hexdigest()

        try:
            size, sha = self._call("reading", bucket, key, run)
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        return size, sha

    def size(self, bucket: str, key: str) -> int:
        """The object's size in bytes (ObjectNotFoundError when absent)."""
        from pyarrow import fs as pafs

        def run() -> int:
            info = self.fs.get_file_info(f"{bucket}/{key}")
            if info.type != pafs.FileType.File:
                raise FileNotFoundError(f"Path does not exist '{bucket}/{key}'")
            return int(info.size)

        return self._call("looking up", bucket, key, run)

    def exists(self, bucket: str, key: str) -> bool:
        try:
            self.size(bucket, key)
        except ObjectNotFoundError:
            return False
        return True

    def list(self, bucket: str, prefix: str = "") -> dict[str, int]:
        """{key: size} of every object under `prefix` (a folder, "exports/"; "" = all)."""
        from pyarrow import fs as pafs

        base = f"{bucket}/{prefix.strip('/')}".rstrip("/")

        def run() -> dict[str, int]:
            infos = self.fs.get_file_info(
                pafs.FileSelector(base, recursive=True, allow_not_found=True))
            return {i.path.split("/", 1)[1]: int(i.size) for i in infos
                    if i.type == pafs.FileType.File}

        return self._call("listing", bucket, prefix, run)

    def copy(self, bucket: str, src_key: str, dst_key: str) -> None:
        """Copy an object to another key of the same bucket on the server (S3 CopyObject: no
        byte passes through this machine); the copy appears whole or not at all."""
        def run() -> None:
            self.fs.copy_file(f"{bucket}/{src_key}", f"{bucket}/{dst_key}")

        self._call("copying to", bucket, dst_key, run)

    def delete(self, bucket: str, key: str) -> bool:
        """Delete the object; False when it was already gone."""
        def run() -> bool:
            try:
                self.fs.delete_file(f"{bucket}/{key}")
            except FileNotFoundError:
                return False
            return True

        return self._call("deleting", bucket, key, run)

    def put_payload(self, source: str, day: date | str, content: bytes,
                    ext: str) -> tuple[str, bool]:
        """Keep a fetched payload as `raw/<source>/<day>/<sha256>.<ext>` in the raw bucket:
        (key, created). Uploaded only when no whole object of that name is there, so the same
        bytes fetched again leave one object (created=False). Two fetchers racing on the same
        new bytes may both upload them: the same content, still one object."""
        key = payload_key(source, day, hashlib.sha256(content).hexdigest(), ext)
        bucket = self.settings.raw_bucket
        try:
            if self.size(bucket, key) == len(content):
                return key, False
        except ObjectNotFoundError:
            pass
        self.put_bytes(bucket, key, content)
        return key, True


def s3_filesystem(settings: ClusterSettings, *, writer: bool = False) -> Any:
    """An s3fs filesystem on the cluster's endpoint with the reader's key (or the writer's),
    for readers anywhere:

        fs = s3_filesystem(settings)
        snap = latest_exports(settings)["prefix"]   # cluster/snapshot.py: exports/latest.json
        con = duckdb.connect(); con.register_filesystem(fs)   # DuckDB 2.0, no httpfs needed
        con.sql(f"from read_parquet('s3://gpucost-published/{snap}gpu_offers.parquet')")
        con.sql(f"from read_parquet('s3://gpucost-published/{snap}price_history/months/*.parquet')")
        pandas.read_parquet(f"s3://gpucost-published/{snap}gpu_offers.parquet", filesystem=fs)

    Listings are not cached (a long-lived reader's glob sees the months a later publish
    added); every request gives up after settings.timeout_s."""
    import s3fs

    key, secret = _credentials(settings, writer)
    return s3fs.S3FileSystem(
        key=key, secret=secret, use_listings_cache=False, skip_instance_cache=True,
        client_kwargs={"endpoint_url": endpoint_url(settings),
                       "region_name": settings.s3_region},
        config_kwargs={"connect_timeout": settings.timeout_s,
                       "read_timeout": settings.timeout_s,
                       "retries": {"max_attempts": 2, "mode": "standard"}})


def storage_options(settings: ClusterSettings, *, writer: bool = False) -> dict[str, Any]:
    """fsspec `storage_options` for pandas / polars (`pd.read_parquet("s3://...",
    storage_options=storage_options(settings))`)."""
    key, secret = _credentials(settings, writer)
    return {"key": key, "secret": secret,
            "client_kwargs": {"endpoint_url": endpoint_url(settings),
                              "region_name": settings.s3_region},
            "config_kwargs": {"connect_timeout": settings.timeout_s,
                              "read_timeout": settings.timeout_s}}
