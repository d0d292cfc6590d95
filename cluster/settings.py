"""Where the cluster's servers are and which keys to use: one settings record for every part.

Read from a JSON file (the one `gpucost cluster up` writes, `<cluster dir>/cluster.json`, or
the file named by GPUCOST_CLUSTER_CONFIG), each field overridable by its environment variable
(GPUCOST_S3_ENDPOINT, GPUCOST_S3_WRITER_KEY, ...: see FIELDS). A reader machine needs only the
endpoint, the published bucket and the reader key; a fetcher or publisher needs the writer
key and the Postgres URL too. Secrets are registered with catalog/secrets.py, so they are
masked in every log line and error, and never appear in `repr()`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from gpucost.catalog.secrets import remember_secret, remember_url_credentials

CONFIG_NAME = "cluster.json"
# the JSON key of each field and its environment variable
FIELDS = {
    "s3_endpoint": "GPUCOST_S3_ENDPOINT",
    "s3_region": "GPUCOST_S3_REGION",
    "raw_bucket": "GPUCOST_S3_RAW_BUCKET",
    "published_bucket": "GPUCOST_S3_PUBLISHED_BUCKET",
    "writer_key": "GPUCOST_S3_WRITER_KEY",
    "writer_secret": "GPUCOST_S3_WRITER_SECRET",
    "reader_key": "GPUCOST_S3_READER_KEY",
    "reader_secret": "GPUCOST_S3_READER_SECRET",
    "postgres_url": "GPUCOST_POSTGRES_URL",
    "prefect_api_url": "GPUCOST_CLUSTER_PREFECT_API_URL",
    "timeout_s": "GPUCOST_S3_TIMEOUT_S",
    "min_rate_kbs": "GPUCOST_S3_MIN_RATE_KBS",
}
# the numeric fields and the open range each must fall in
NUMBERS = {"timeout_s": ("a number of seconds", 3600.0),
           "min_rate_kbs": ("a rate in KiB/s", 1e7)}
SECRET_FIELDS = ("writer_secret", "reader_secret")


class ClusterNotConfiguredError(Exception):
    """No cluster settings (no cluster.json and no GPUCOST_S3_ENDPOINT), or a required one is
    missing; the message says which and where they are looked for."""


def cluster_dir() -> Path:
    """Where `gpucost cluster up` keeps its servers' data and cluster.json:
    GPUCOST_CLUSTER_DIR, else <data dir>/cluster."""
    from gpucost.warehouse import data_dir

    value = os.environ.get("GPUCOST_CLUSTER_DIR")
    return Path(value).resolve() if value else data_dir() / "cluster"


def config_path() -> Path:
    value = os.environ.get("GPUCOST_CLUSTER_CONFIG")
    return Path(value).resolve() if value else cluster_dir() / CONFIG_NAME


@dataclass(frozen=True)
class ClusterSettings:
    s3_endpoint: str = ""
    s3_region: str = "us-east-1"
    raw_bucket: str = "gpucost-raw"
    published_bucket: str = "gpucost-published"
    writer_key: str = ""
    writer_secret: str = field(default="", repr=False)
    reader_key: str = ""
    reader_secret: str = field(default="", repr=False)
    postgres_url: str = field(default="", repr=False)
    prefect_api_url: str = ""
    # every S3 call gives up after this many seconds (a dead volume server makes writes hang
    # until the client's timeout: keep it short)
    timeout_s: float = 5.0
    # a read (GET) that brings fewer than this many KiB per second over any window of
    # timeout_s is given up (objects.py): a store that trickles is a store that is down
    min_rate_kbs: float = 64.0

    def require(self, *names: str) -> ClusterSettings:
        missing = [n for n in names if not getattr(self, n)]
        if missing:
            raise ClusterNotConfiguredError(
                "cluster settings missing: " + ", ".join(
                    f"{n} ({FIELDS[n]})" for n in missing)
                + f"; looked in {config_path()} and the environment. "
                "`gpucost cluster up` starts local servers and writes them")
        return self

    def s3_storage_options(self, *, writer: bool) -> dict[str, str]:
        """pyarrow / pyiceberg style options for this endpoint with the writer's or reader's key."""
        key, secret = ((self.writer_key, self.writer_secret) if writer
                       else (self.reader_key, self.reader_secret))
        return {"s3.endpoint": self.s3_endpoint, "s3.access-key-id": key,
                "s3.secret-access-key": secret, "s3.region": self.s3_region}


def remember(settings: ClusterSettings) -> ClusterSettings:
    """Register the settings' secrets for redaction (catalog/secrets.py): done by
    load_settings, and by whoever builds a settings record in code."""
    for name in SECRET_FIELDS:
        remember_secret(getattr(settings, name))
    if settings.postgres_url:
        remember_url_credentials(settings.postgres_url)
    return settings


def load_settings(path: Path | None = None) -> ClusterSettings:
    """The settings from `path` (else config_path(), when it exists), then the environment."""
    path = path or config_path()
    values: dict[str, object] = {}
    if path.exists():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ClusterNotConfiguredError(f"{path} is not readable JSON: {exc}") from None
        if not isinstance(data, dict):
            raise ClusterNotConfiguredError(f"{path} must hold a JSON object")
        values.update({k: v for k, v in data.items() if k in FIELDS})
    for name, env in FIELDS.items():
        if os.environ.get(env):
            values[name] = os.environ[env]
    known = {f.name: f for f in fields(ClusterSettings)}
    for name, (what, top) in NUMBERS.items():
        if name not in values:
            continue
        try:
            values[name] = float(values[name])  # type: ignore[arg-type]
            if not 0 < values[name] < top:  # type: ignore[operator]
                raise ValueError
        except (TypeError, ValueError):
            raise ClusterNotConfiguredError(
                f"{name} ({FIELDS[name]}) must be {what} in (0, {top:g}), not "
                f"{values[name]!r}") from None
    settings = replace(ClusterSettings(), **{k: (str(v) if k not in NUMBERS else v)
                                              for k, v in values.items() if k in known})
    remember(settings)
    return settings


def read_cluster_settings(dir: Path) -> ClusterSettings | None:
    """`<dir>/cluster.json` as written, without the environment's overrides (those are for
    the machines that use a cluster, not for the one that runs it); None when absent."""
    try:
        data = json.loads((dir / CONFIG_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    known = {f.name for f in fields(ClusterSettings)}
    values = {k: v for k, v in data.items() if k in known} if isinstance(data, dict) else {}
    try:
        result = ClusterSettings(**values)
    except TypeError:
        return None
    remember(result)  # its secrets are redacted from every log line
    return result


def write_settings(settings: ClusterSettings, path: Path | None = None) -> Path:
    """Write `settings` as JSON (mode 0600: it holds the keys), atomically."""
    path = path or config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump({f.name: getattr(settings, f.name) for f in fields(settings)}, fh, indent=2)
    os.replace(tmp, path)
    return path
