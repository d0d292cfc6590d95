"""The published snapshot on object storage: what every reader of a cluster sees.

After a local publish succeeded on the publisher (warehouse/publish.py: the new DuckDB file
swapped in, the exports renamed into place), `publish_snapshot` copies it to the published
bucket with the writer key:

1. the exports, the same layout as locally (warehouse/exports.py): the files of the snapshot
   local `exports/latest` names, under `exports/snapshots/<publish_id>/` (manifest.json and
   schema.json included). A file whose sha256 the previous remote snapshot's manifest lists
   at the same path (the history months a publish did not rewrite, unchanged marts) is
   copied on the server from that snapshot's key (S3 CopyObject: no byte uploaded again),
   every other file is uploaded; an object already there with the manifest's size (a rerun
   after a killed publish) is skipped. Every snapshot prefix is whole on its own, so pruning
   one never breaks another;
2. the warehouse file under a NEW key, `warehouse/<UTC timestamp>-<sha256[:16]>.duckdb` (an
   existing key is never written over: keys are immutable, so a reader's cached copy of a key
   is valid forever), and the object's size is checked;
3. `CURRENT`: a small JSON naming that key with its sha256, size, published_at, the
   row count of every table and the rows in force per source (`health`). Writing an S3
   object is atomic (readers see the old or the new one), so a crash at any point before
   it leaves CURRENT naming the previous whole file;
4. `exports/latest.json`, LAST: the snapshot's manifest plus `prefix`
   (`exports/snapshots/<publish_id>/`). S3 has no symbolic link: this one PUT is the flip of
   the exports, and a crash before it leaves it naming the previous whole snapshot. A reader
   reads it once (`latest_exports`) and then only keys under its prefix: one publish;
5. after the flips only: the warehouse objects beyond the newest KEEP_WAREHOUSES are
   deleted, never the one CURRENT names nor the previous one (a reader that read the old
   CURRENT a moment ago still finds its key); the export snapshots beyond the newest
   GPUCOST_EXPORT_SNAPSHOTS (3), never the one latest.json names; and the keys of the flat
   layout before snapshots (`exports/<mart>.parquet`, `exports/schema.json`, ...).

The shrink guard: before anything is uploaded, the new file's rows in force per source and
price-history rows are compared with CURRENT's by the embedded publish's own test
(warehouse/publish.py shrink_between): a publish that would lose half a source's rows (a
publisher on a fresh or lost data dir) is SnapshotShrinkError, nothing is uploaded and CURRENT
stays, unless `allow_shrink`. A CURRENT written before `health` was recorded is compared on
price_history alone.

Readers: `read_current` (the reader key; CURRENT is read only when at most
CURRENT_MAX_BYTES, refused unread otherwise) and `open_current`, which downloads CURRENT's key
into a local cache once (streamed to a temporary name, sha256 and size checked, then renamed:
a mismatch is SnapshotCorruptError and nothing is cached) and opens it read-only with file
access off, the same way as a local published file (open_published). A cached file is
hashed again on every open: one whose bytes no longer match CURRENT's sha256 (changed on disk,
same size or not) is downloaded again, and a note says so. The cache keeps the current and
the previous file: a connection opened on the previous one keeps reading it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import time
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gpucost.cluster.objects import (
    ObjectNotFoundError,
    ObjectStore,
    ObjectStoreError,
    ObjectTooLargeError,
)
from gpucost.cluster.settings import ClusterSettings
from gpucost.warehouse.publish import ShrinkRefusedError, open_published

CURRENT_KEY = "CURRENT"
WAREHOUSE_PREFIX = "warehouse/"
EXPORTS_PREFIX = "exports/"
SNAPSHOTS_PREFIX = "exports/snapshots/"
LATEST_EXPORTS_KEY = "exports/latest.json"
LATEST_MAX_BYTES = 16 << 20  # a manifest of a few hundred files: larger is refused unread
KEEP_WAREHOUSES = 5
CURRENT_MAX_BYTES = 1 << 20  # CURRENT is a record of a few KB: larger is refused unread
CACHE_DIRNAME = "remote-cache"
# a test hook: the publisher stops (sleeps) at this stage so a test can SIGKILL it there
PAUSE_ENV = "GPUCOST_SNAPSHOT_PAUSE_AT"
STAGES = ("exports-started", "exports-uploaded", "warehouse-started", "warehouse-uploaded",
          "current-written", "latest-written")
_KEY = re.compile(r"^warehouse/\d{8}T\d{6}Z-[0-9a-f]{16}\.duckdb$")
_ID = re.compile(r"^\d{8}T\d{12}Z$")  # an export snapshot (warehouse/exports.py publish_id)
_SHA = re.compile(r"^[0-9a-f]{64}$")
_PART_MAX_AGE_S = 3600  # a temporary download older than this is a dead process's


class SnapshotError(Exception):
    """Base of the snapshot's named errors."""


class NoSnapshotError(SnapshotError):
    """Nothing published on object storage yet (no CURRENT)."""


class SnapshotCorruptError(SnapshotError):
    """CURRENT is not a valid record, or the object it names does not match its sha256 or
    size (nothing is cached)."""


class SnapshotShrinkError(SnapshotError, ShrinkRefusedError):
    """The new snapshot holds far fewer rows in force than CURRENT's: nothing uploaded,
    CURRENT unchanged (the embedded publish's guard, applied to the shared snapshot)."""


@dataclass
class SnapshotRecord:
    """What a publish_snapshot did; `current()` is what it wrote to CURRENT."""

    key: str
    sha256: str
    size: int
    published_at: str
    tables: dict[str, int]
    previous: str | None = None
    health: dict[str, int] = field(default_factory=dict)  # rows in force per source
    created: bool = True  # False: CURRENT already named these exact bytes, nothing uploaded
    exports_snapshot: str = ""  # the publish_id exports/latest.json names
    exports_uploaded: int = 0  # files uploaded
    exports_copied: int = 0  # files copied on the server from the previous snapshot
    exports_skipped: int = 0  # files already there under this snapshot's prefix
    exports_deleted: int = 0
    warehouses_deleted: list[str] = field(default_factory=list)
    warehouse_upload_s: float = 0.0
    seconds: float = 0.0

    def current(self) -> dict[str, Any]:
        return {"key": self.key, "sha256": self.sha256, "size": self.size,
                "published_at": self.published_at, "tables": self.tables,
                "previous": self.previous, "health": self.health}

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _stage(name: str) -> None:
    """Test hook (PAUSE_ENV): announce the stage on stdout and sleep, to be killed here."""
    if os.environ.get(PAUSE_ENV) == name:
        print(f"snapshot paused at {name}", flush=True)
        time.sleep(3600)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(8 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _table_rows(path: Path) -> tuple[dict[str, int], dict[str, int]]:
    """(row count of every table, rows in force per source) of a published file, read with
    file access off."""
    con = open_published(path)
    try:
        names = [r[0] for r in con.execute(
            "select table_name from duckdb_tables() where database_name = current_database() "
            "and schema_name = 'main' order by 1").fetchall()]
        rows = {n: con.execute(f'select count(*) from "{n}"').fetchone()[0] for n in names}
        health = dict(con.execute(
            "select source, rows_in_force from source_health").fetchall()
        ) if "source_health" in names else {}
        return rows, {str(k): int(v or 0) for k, v in health.items()}
    finally:
        con.close()


def _shrink(previous: dict[str, Any] | None, tables: dict[str, int],
            health: dict[str, int]) -> list[str]:
    """What the new snapshot loses against CURRENT (warehouse/publish.py shrink_between)."""
    from gpucost.warehouse.publish import shrink_between

    if not previous:
        return []
    old_health = previous.get("health") if isinstance(previous.get("health"), dict) else {}
    old_tables = previous.get("tables") if isinstance(previous.get("tables"), dict) else {}
    old_history = old_tables.get("price_history")
    return shrink_between(
        {str(k): int(v) for k, v in old_health.items() if isinstance(v, int)},
        old_history if isinstance(old_history, int) else None, health,
        tables.get("price_history"))


def _published_at(data_dir: Path, serving: Path) -> str:
    """The local publish's time: schema.json's published_at, else the file's mtime."""
    from gpucost.warehouse.exports import SCHEMA_NAME, export_dir

    try:
        doc = json.loads((export_dir(data_dir) / SCHEMA_NAME).read_text(encoding="utf-8"))
        if isinstance(doc, dict) and doc.get("published_at"):
            return str(doc["published_at"])
    except (OSError, ValueError):
        pass
    return datetime.fromtimestamp(serving.stat().st_mtime, UTC).isoformat()


def _local_snapshot(data_dir: Path) -> tuple[Path, dict[str, Any]] | None:
    """(folder, manifest) of the snapshot local `exports/latest` names, or None."""
    from gpucost.warehouse.exports import export_dir, latest_snapshot, read_manifest

    folder = latest_snapshot(export_dir(data_dir))
    if folder is None:
        return None
    manifest = read_manifest(folder)
    if not manifest.get("publish_id") or not isinstance(manifest.get("files"), list):
        return None
    return folder, manifest


def _read_latest(store: ObjectStore) -> dict[str, Any] | None:
    """exports/latest.json (None when absent or not a valid record)."""
    bucket = store.settings.published_bucket
    try:
        doc = json.loads(store.get_bytes(bucket, LATEST_EXPORTS_KEY, max_bytes=LATEST_MAX_BYTES))
    except (ObjectNotFoundError, ObjectTooLargeError, ValueError):
        return None
    if not (isinstance(doc, dict) and _ID.match(str(doc.get("publish_id")))
            and isinstance(doc.get("files"), list)):
        return None
    return doc


def latest_exports(settings: ClusterSettings) -> dict[str, Any]:
    """exports/latest.json (reader key): the manifest of the current export snapshot plus
    `prefix`, the folder of its keys (`exports/snapshots/<publish_id>/`). Read it once, then
    read keys under `prefix` only: one publish. NoSnapshotError when there is none."""
    doc = _read_latest(ObjectStore(settings, writer=False))
    if doc is None:
        raise NoSnapshotError(
            f"no export snapshot published: no valid s3://{settings.published_bucket}/"
            f"{LATEST_EXPORTS_KEY} (the cluster's publisher writes it after its first publish)")
    return doc


def _upload_exports(store: ObjectStore, bucket: str, folder: Path, manifest: dict[str, Any],
                    previous: dict[str, Any] | None) -> tuple[int, int, int]:
    """Upload the local snapshot `folder` under exports/snapshots/<publish_id>/ (module
    docstring), manifest.json last; returns (uploaded, copied, skipped)."""
    from gpucost.warehouse.exports import MANIFEST_NAME

    prefix = f"{SNAPSHOTS_PREFIX}{manifest['publish_id']}/"
    there = store.list(bucket, prefix)
    old_prefix = f"{SNAPSHOTS_PREFIX}{previous['publish_id']}/" if previous else None
    old = {f.get("path"): f for f in (previous or {}).get("files", []) if isinstance(f, dict)}
    old_there = store.list(bucket, old_prefix) if old_prefix else {}
    uploaded = copied = skipped = 0
    entries = [f for f in manifest["files"] if isinstance(f, dict)]
    size = (folder / MANIFEST_NAME).stat().st_size
    for entry in [*entries, {"path": MANIFEST_NAME, "bytes": size, "sha256": None}]:
        rel = str(entry["path"])
        key = prefix + rel
        if there.get(key) == entry["bytes"]:
            skipped += 1
            continue
        was = old.get(rel)
        if (old_prefix and was and entry["sha256"] and was.get("sha256") == entry["sha256"]
                and old_there.get(old_prefix + rel) == entry["bytes"]):
            store.copy(bucket, old_prefix + rel, key)
            copied += 1
        else:
            store.put_file(bucket, key, folder / rel)
            uploaded += 1
        if uploaded + copied == 1:
            _stage("exports-started")
    return uploaded, copied, skipped


def _read_current(store: ObjectStore) -> dict[str, Any]:
    bucket = store.settings.published_bucket
    try:
        raw = store.get_bytes(bucket, CURRENT_KEY, max_bytes=CURRENT_MAX_BYTES)
    except ObjectNotFoundError:
        raise NoSnapshotError(
            f"nothing published yet: no s3://{bucket}/{CURRENT_KEY} at {store.endpoint} "
            "(the cluster's publisher writes it after its first publish)") from None
    except ObjectTooLargeError as exc:
        raise SnapshotCorruptError(
            f"s3://{bucket}/{CURRENT_KEY} is not a valid snapshot record (a record is at most "
            f"{CURRENT_MAX_BYTES} bytes; {str(exc).split(': ', 1)[-1]})") from None
    try:
        doc = json.loads(raw)
        if not (isinstance(doc, dict) and _KEY.match(str(doc.get("key")))
                and _SHA.match(str(doc.get("sha256")))
                and isinstance(doc.get("size"), int) and doc["size"] > 0):
            raise ValueError("missing or malformed key, sha256 or size")
    except ValueError as exc:
        raise SnapshotCorruptError(
            f"s3://{bucket}/{CURRENT_KEY} is not a valid snapshot record ({exc})") from None
    return doc


def read_current(settings: ClusterSettings) -> dict[str, Any]:
    """CURRENT (reader key): {key, sha256, size, published_at, tables: {name: rows},
    previous}. NoSnapshotError when nothing was published yet."""
    return _read_current(ObjectStore(settings, writer=False))


def warehouse_key(sha256: str, when: datetime | None = None) -> str:
    when = (when or datetime.now(UTC)).astimezone(UTC)
    return f"{WAREHOUSE_PREFIX}{when:%Y%m%dT%H%M%SZ}-{sha256[:16]}.duckdb"


def publish_snapshot(data_dir: Path, settings: ClusterSettings, *,
                     keep: int = KEEP_WAREHOUSES, locked: bool = False,
                     allow_shrink: bool = False) -> SnapshotRecord:
    """Copy the local published warehouse and its exports to the published bucket, CURRENT
    last (module docstring). Holds the data directory's writer lock meanwhile, so no local
    refresh replaces the files half-way (`locked=True`: the caller holds it already).

    Raises NoWarehouseError when nothing was published locally, SnapshotShrinkError when
    the file holds far fewer rows than CURRENT's (unless `allow_shrink`; nothing uploaded),
    the object store's named errors (objects.py) when an upload fails: CURRENT then still
    names the previous file."""
    from gpucost.warehouse.publish import NoWarehouseError, serving_path, writer_lock

    start = time.perf_counter()
    settings.require("s3_endpoint", "writer_key", "writer_secret", "published_bucket")
    data_dir = Path(data_dir)
    serving = serving_path(data_dir)
    if not serving.exists():
        raise NoWarehouseError(f"no published warehouse at {serving}: nothing to snapshot")
    store = ObjectStore(settings, writer=True)
    bucket = settings.published_bucket
    with nullcontext() if locked else writer_lock(data_dir):
        size = serving.stat().st_size
        sha = _sha256(serving)
        tables, health = _table_rows(serving)
        published_at = _published_at(data_dir, serving)
        try:
            previous: dict[str, Any] | None = _read_current(store)
        except SnapshotError:
            previous = None
        same = bool(previous and previous["sha256"] == sha and previous["size"] == size)
        lost = [] if allow_shrink or same else _shrink(previous, tables, health)
        if lost:  # before any upload: the exports are read in place too
            assert previous is not None
            raise SnapshotShrinkError(
                "refused: the new snapshot would hold far fewer rows than the one CURRENT "
                f"names ({previous['key']}: {'; '.join(lost[:5])}"
                f"{' ...' if len(lost) > 5 else ''}); nothing uploaded, CURRENT and the "
                "exports stay as they were. A publisher on a fresh or lost data dir? To "
                "publish anyway: --allow-shrink")
        local = _local_snapshot(data_dir)
        latest = _read_latest(store)
        uploaded = copied = skipped = 0
        if local is not None:
            uploaded, copied, skipped = _upload_exports(store, bucket, *local, latest)
        _stage("exports-uploaded")

        if previous and same and _object_size(store, bucket, previous["key"]) == size:
            out = SnapshotRecord(previous["key"], sha, size, str(previous.get("published_at")),
                                 previous.get("tables") or tables,
                                 previous.get("previous"), created=False,
                                 health=previous.get("health") or health)
        else:
            key = warehouse_key(sha)
            upload_start = time.perf_counter()
            existing = _object_size(store, bucket, key)
            if existing is None:
                store.put_file(bucket, key, serving, progress=_first_chunk_stage())
            elif existing != size:  # a key is never written over, whatever it holds
                raise SnapshotCorruptError(
                    f"s3://{bucket}/{key} exists with {existing} bytes, not {size}: not "
                    "written over; CURRENT not changed")
            # else: the same bytes published in the same second already: reused
            uploaded_size = store.size(bucket, key)
            if uploaded_size != size:
                raise SnapshotCorruptError(
                    f"s3://{bucket}/{key} holds {uploaded_size} bytes after the upload, the "
                    f"local file {size}: CURRENT not changed")
            out = SnapshotRecord(key, sha, size, published_at, tables,
                                 previous["key"] if previous else None, health=health,
                                 warehouse_upload_s=time.perf_counter() - upload_start)
            _stage("warehouse-uploaded")
            store.put_bytes(bucket, CURRENT_KEY,
                            json.dumps(out.current(), indent=1).encode("utf-8"))
            _stage("current-written")
        if local is not None:  # the flip of the exports: one PUT, last
            folder, manifest = local
            if not latest or latest.get("publish_id") != manifest["publish_id"]:
                doc = {**manifest,
                       "prefix": f"{SNAPSHOTS_PREFIX}{manifest['publish_id']}/"}
                store.put_bytes(bucket, LATEST_EXPORTS_KEY,
                                json.dumps(doc, indent=1).encode("utf-8"))
            _stage("latest-written")
            out.exports_snapshot = manifest["publish_id"]
        out.exports_uploaded, out.exports_copied, out.exports_skipped = uploaded, copied, skipped
        # after the flips only: what no reader can be about to open any more
        out.warehouses_deleted = _prune_warehouses(store, bucket, keep, out)
        if local is not None:
            out.exports_deleted = _prune_exports(store, bucket)
    out.seconds = time.perf_counter() - start
    return out


def _first_chunk_stage() -> Any:
    def progress(done: int) -> None:
        if not fired:
            fired.append(done)
            _stage("warehouse-started")

    fired: list[int] = []
    return progress


def _object_size(store: ObjectStore, bucket: str, key: str) -> int | None:
    try:
        return store.size(bucket, key)
    except ObjectNotFoundError:
        return None


def _prune_warehouses(store: ObjectStore, bucket: str, keep: int,
                      out: SnapshotRecord) -> list[str]:
    """Delete warehouse objects beyond the newest `keep` (keys sort by time), never the one
    CURRENT names (read again: the truth is the store's) nor its previous one."""
    try:
        now = _read_current(store)
        protected = {now["key"], now.get("previous")}
    except SnapshotError:
        return []  # no readable CURRENT: delete nothing
    protected |= {out.key, out.previous}
    keys = sorted(k for k in store.list(bucket, WAREHOUSE_PREFIX) if _KEY.match(k))
    old = keys[:-keep] if keep > 0 else keys
    deleted = []
    for key in old:
        if key not in protected:
            store.delete(bucket, key)
            deleted.append(key)
    return deleted


def _prune_exports(store: ObjectStore, bucket: str) -> int:
    """Delete the export snapshots beyond the newest GPUCOST_EXPORT_SNAPSHOTS, never the one
    exports/latest.json names (read again: the truth is the store's), any snapshot newer than
    it (a killed publisher's partial upload: the rerun uploads it anew), and the keys of the
    flat layout before snapshots; returns the objects deleted."""
    from gpucost.warehouse.exports import keep_snapshots

    latest = _read_latest(store)
    if latest is None:
        return 0  # no readable pointer: delete nothing
    current = str(latest["publish_id"])
    keys = store.list(bucket, EXPORTS_PREFIX)
    ids = sorted({k[len(SNAPSHOTS_PREFIX):].split("/", 1)[0] for k in keys
                  if k.startswith(SNAPSHOTS_PREFIX)})
    older = [i for i in ids if i < current]
    keep = {current, *older[len(older) - (keep_snapshots() - 1):]} if keep_snapshots() > 1 \
        else {current}
    stale = []
    for key in keys:
        if key == LATEST_EXPORTS_KEY:
            continue
        if key.startswith(SNAPSHOTS_PREFIX):
            if key[len(SNAPSHOTS_PREFIX):].split("/", 1)[0] not in keep:
                stale.append(key)
        else:
            stale.append(key)  # the flat layout of before (exports/<mart>.parquet, ...)
    for key in stale:
        store.delete(bucket, key)
    return len(stale)


def cache_dir_default() -> Path:
    from gpucost.warehouse import data_dir

    return data_dir() / CACHE_DIRNAME


def fetch_current(settings: ClusterSettings,
                  cache_dir: Path | None = None) -> tuple[Path, dict[str, Any]]:
    """(local copy of CURRENT's warehouse, CURRENT): downloaded once per key into
    `cache_dir` (default <data dir>/remote-cache), checked against CURRENT's sha256 and size;
    a mismatch is SnapshotCorruptError and nothing is cached. A cached copy is hashed again
    on every call: one that no longer matches is downloaded anew (a note on stderr says so).
    Cached files other than the current and the previous one are removed (an open
    connection keeps reading its file)."""
    store = ObjectStore(settings, writer=False)
    cache = Path(cache_dir) if cache_dir else cache_dir_default()
    cache.mkdir(parents=True, exist_ok=True)
    bucket = settings.published_bucket
    current = _read_current(store)
    for attempt in (1, 2):
        local = cache / current["key"].rsplit("/", 1)[-1]
        if _cached_whole(local, current):
            break
        tmp = cache / f".part-{os.getpid()}-{os.urandom(4).hex()}-{local.name}"
        try:
            # never more than CURRENT says: a larger object is refused as it comes
            size, sha = store.download(bucket, current["key"], tmp,
                                       max_bytes=current["size"])
            if (size, sha) != (current["size"], current["sha256"]):
                raise SnapshotCorruptError(
                    f"s3://{bucket}/{current['key']} does not match CURRENT (sha256 "
                    f"{sha[:16]}..., {size} bytes; CURRENT says {current['sha256'][:16]}..., "
                    f"{current['size']} bytes): not cached")
            os.replace(tmp, local)
            break
        except ObjectTooLargeError:
            raise SnapshotCorruptError(
                f"s3://{bucket}/{current['key']} does not match CURRENT (larger than its "
                f"{current['size']} bytes): not cached") from None
        except ObjectNotFoundError:
            # CURRENT moved on twice since it was read and the key was pruned: read it anew
            again = _read_current(store)
            if attempt == 2 or again["key"] == current["key"]:
                raise SnapshotCorruptError(
                    f"CURRENT names s3://{bucket}/{current['key']}, which is not there"
                ) from None
            current = again
        finally:
            tmp.unlink(missing_ok=True)
    _prune_cache(cache, {local.name, str(current.get("previous") or "").rsplit("/", 1)[-1]})
    return local, current


def _cached_whole(local: Path, current: dict[str, Any]) -> bool:
    """Whether `local` holds CURRENT's bytes: its size, then its sha256, checked on every
    open (keys are immutable, but the file on this disk is not). One that does not is
    removed, and a note says why it is downloaded again."""
    try:
        if not local.is_file() or local.is_symlink():
            if local.is_symlink():
                local.unlink()
            return False
        size = local.stat().st_size
        if size == current["size"] and _sha256(local) == current["sha256"]:
            return True
        local.unlink()
    except OSError as exc:
        print(f"note: cannot check the cached {local}: {exc}; downloading it again",
              file=sys.stderr)
        return False
    print(f"note: the cached {local.name} does not match CURRENT's sha256 (changed on disk "
          "since it was downloaded): removed, downloading it again", file=sys.stderr)
    return False


def _prune_cache(cache: Path, keep: set[str]) -> None:
    now = time.time()
    for path in cache.iterdir():
        try:
            if path.name.startswith(".part-"):
                if now - path.stat().st_mtime > _PART_MAX_AGE_S:
                    path.unlink(missing_ok=True)
            elif path.suffix == ".duckdb" and path.name not in keep:
                path.unlink(missing_ok=True)
        except OSError as exc:  # another reader pruning at the same moment: harmless
            print(f"note: cannot prune {path}: {exc}", file=sys.stderr)


def open_current(settings: ClusterSettings, cache_dir: Path | None = None) -> Any:
    """A read-only DuckDB connection (file access off, as open_published) to the warehouse
    CURRENT names, from the local cache (fetch_current)."""
    local, _ = fetch_current(settings, cache_dir)
    return open_published(local)


__all__ = [
    "CURRENT_KEY", "CURRENT_MAX_BYTES", "KEEP_WAREHOUSES", "LATEST_EXPORTS_KEY",
    "NoSnapshotError", "latest_exports",
    "ObjectStoreError", "SnapshotCorruptError", "SnapshotError", "SnapshotRecord",
    "SnapshotShrinkError", "fetch_current",
    "open_current", "publish_snapshot", "read_current",
]
