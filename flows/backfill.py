"""`gpucost backfill`: load a catalog's git history, one version of a file per commit.

A public catalog kept in git (SkyPilot's `catalogs/v8/<cloud>/vms.csv`, committed many times
a day) holds years of dated prices in its history. `backfill` reads, in a local clone, every
commit that touched PATH (a file, a folder or a git pathspec glob), oldest first, and loads
each version as the payload of its source observed at the commit's committer date (UTC),
through the same load step as `gpucost ingest SOURCE FILE --observed-at DATE --no-publish`
(flows/steps.py `load_payloads`: saved verbatim, parsed, gated, one transaction per payload;
a bad version is refused by name and the backfill goes on). Then one build and publish at
the end (or none: `--no-publish`).

* Which versions: `git log --reverse --format=<sha, committer time> --name-only
  --diff-filter=d -- PATH` (the commits that added, changed, renamed or copied a file under
  PATH; a deletion has no version to load), read as a stream; each version's bytes come from
  one long-lived `git cat-file --batch` (what `git show COMMIT:PATH` prints, without a
  process per commit). One version is in memory at a time.
* The payload's name is `<folder>/<file name>` of the version's path (`lambda/vms.csv`), the
  name SkyPilot's live fetch gives it, so the skypilot source reads the provider (stream)
  from the folder; `--provider P` names it `P/<file name>` instead.
* Idempotent: a version already in the raw layer (same source, payload name, bytes and
  observation time: a fetch row of any status) is skipped before anything is written, so a
  second run adds no row anywhere (raw.fetches included, which an `ingest` of the same file
  would grow by an 'unchanged' row). A version whose bytes an earlier commit already loaded
  (a catalog that went back to a previous price list) loads as 'unchanged' and confirms those
  prices for its own day, as a refetch would.
* What is in force does not move backwards: int_fetches_in_force takes, per source and stream,
  the fetch with the latest observed_at, so versions older than what the warehouse holds are
  history only.
* The collapse guard (warehouse/refusals.py) refuses a version with fewer than half the rows
  of the newest good payload of its stream, only when that version would become the newest:
  when backfilling oldest first into a stream with no newer data, each version is compared
  with the one before it; once newer data is in the warehouse (a refresh, a recorded file),
  the older versions are history and are not guarded. `--force` loads refused versions anyway.
"""

from __future__ import annotations

import hashlib
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

from gpucost.catalog import sources
from gpucost.catalog.records import Payload, PayloadTooLargeError, SourceError
from gpucost.flows import steps
from gpucost.warehouse import data_dir as default_data_dir
from gpucost.warehouse.load import ingest_max_bytes
from gpucost.warehouse.publish import writer_lock
from gpucost.warehouse.store import RawStore

_HEADER = "\x01"  # marks a commit line in the git log stream (never the start of a path)


class BackfillError(Exception):
    """A usage error of `backfill`: not a git repository, a path no commit touched, no git."""


class NotAFileError(SourceError):
    """A path the history lists that is no file at that commit (a submodule): refused."""


@dataclass(frozen=True)
class Version:
    """One version of a file: the commit that wrote it, when (committer date, UTC), where."""

    commit: str
    committed_at: datetime
    path: str  # relative to the repository root, as git names it


@dataclass
class CommitLine:
    """What happened to one version (one line of output)."""

    version: Version
    payload_name: str
    status: str  # loaded | unchanged | refused | skipped (already backfilled)
    rows_accepted: int = 0
    rows_refused: int = 0
    error_type: str | None = None
    error: str | None = None


@dataclass
class BackfillResult:
    lines: list[CommitLine] = field(default_factory=list)
    published: steps.PublishResult | None = None
    load_seconds: float = 0.0  # reading git and loading every version, before the publish

    def count(self, status: str) -> int:
        return sum(line.status == status for line in self.lines)

    @property
    def rows_accepted(self) -> int:
        return sum(line.rows_accepted for line in self.lines)

    @property
    def rows_refused(self) -> int:
        return sum(line.rows_refused for line in self.lines)


def _git(repo: Path, *args: str) -> list[str]:
    return ["git", "-C", str(repo), "-c", "core.quotePath=false", *args]


def check_repository(repo: Path) -> None:
    """BackfillError unless `repo` is (inside) a git repository and git can be run."""
    if not Path(repo).is_dir():
        raise BackfillError(f"{repo}: no such directory")
    try:
        done = subprocess.run(_git(repo, "rev-parse", "--git-dir"), capture_output=True,
                              text=True, check=False)
    except FileNotFoundError:
        raise BackfillError("the git binary was not found on PATH (backfill runs git)"
                            ) from None
    if done.returncode != 0:
        raise BackfillError(f"{repo}: not a git repository ({' '.join(done.stderr.split())})")


def versions(repo: Path, pathspec: str) -> Iterator[Version]:
    """Every version of the files under `pathspec`, oldest commit first, streamed from
    `git log` (nothing is held but the current commit)."""
    args = _git(repo, "log", "--reverse", "-z", f"--format={_HEADER}%H %ct", "--name-only",
                "--diff-filter=d", "--no-renames", "--", pathspec)
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    commit, when = "", datetime.min
    pending, finished = b"", False
    try:
        while True:
            chunk = proc.stdout.read(1 << 16)
            *tokens, pending = (pending + chunk).split(b"\0") if chunk else (pending, b"")
            for token in tokens:
                # a commit line ends with a line end: it starts the token after it
                text = token.decode("utf-8", errors="surrogateescape").lstrip("\n")
                if text.startswith(_HEADER):
                    sha, seconds = text[1:].split()
                    commit, when = sha, datetime.fromtimestamp(int(seconds), UTC)
                elif text and commit:
                    yield Version(commit, when, text)
            if not chunk:
                break
        finished = True
    finally:
        if not finished and proc.poll() is None:  # the caller stopped early
            proc.kill()
        stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        code = proc.wait()
        proc.stdout.close()
        if proc.stderr:
            proc.stderr.close()
    if code not in (0, -9):
        raise BackfillError(f"git log failed: {' '.join(stderr.split())[:300]}")


class Blobs:
    """The bytes of `COMMIT:PATH`, one at a time, from one `git cat-file --batch` process."""

    def __init__(self, repo: Path):
        self.proc = subprocess.Popen(_git(repo, "cat-file", "--batch"), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def read(self, version: Version, cap: int) -> tuple[bytes | None, int]:
        """(the bytes, their size), or (None, size) when the size is above `cap` (the bytes
        are read past, never kept)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{version.commit}:{version.path}\n".encode(
            "utf-8", errors="surrogateescape"))
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().decode(errors="replace").split()
        if len(header) == 3 and header[1] != "blob":  # a submodule (commit), a tree: skip it
            self._skip(int(header[2]))
        if len(header) != 3 or header[1] != "blob":
            raise NotAFileError(f"{version.path} at {version.commit[:12]} is no file "
                                f"(git cat-file: {' '.join(header[1:]) or 'no answer'})")
        size = int(header[2])
        if size > cap:
            self._skip(size)
            return None, size
        content = self.proc.stdout.read(size)
        self.proc.stdout.read(1)  # the line end after the object
        return content, size

    def _skip(self, size: int) -> None:
        """Read past an object of `size` bytes and its line end, keeping none of it."""
        assert self.proc.stdout is not None
        left = size + 1
        while left:
            got = len(self.proc.stdout.read(min(left, 1 << 20)))
            if not got:
                raise BackfillError("git cat-file stopped answering")
            left -= got

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        if self.proc.stdout:
            self.proc.stdout.close()
        self.proc.wait()


def payload_name(path: str, provider: str | None = None) -> str:
    """`<folder>/<file name>` (`catalogs/v8/lambda/vms.csv` -> `lambda/vms.csv`), the folder
    replaced by `provider` when given."""
    p = PurePosixPath(path)
    folder = provider or (p.parent.name if p.parent.name else "")
    return f"{folder}/{p.name}" if folder else p.name


def _known(con, source: str) -> set[tuple]:  # type: ignore[no-untyped-def]
    """(payload name, sha256, observed_at) of every fetch of this source: what a backfill
    already loaded (or refused) is not loaded again."""
    return {(name, sha, at) for name, sha, at in con.execute(
        "select payload_name, sha256, observed_at from fetches where source = ?",
        [source]).fetchall()}


def _key(name: str, sha: str | None, at: datetime) -> tuple:
    return (name, sha, at)


def backfill(
    repo: Path, pathspec: str, source: str, *, provider: str | None = None,
    data_dir: Path | None = None, publish: bool = True, force: bool = False,
    allow_shrink: bool = False, say: Callable[[CommitLine], None] | None = None,
) -> BackfillResult:
    """Load every version of the files under `pathspec` in the git clone `repo` (see the
    module docstring), then build and publish once (unless `publish` is False). `say` is
    called with each version's line as it is loaded. BackfillError: not a repository, no git,
    or no commit touched `pathspec`."""
    repo = Path(repo)
    sources.get(source)  # KeyError: an unknown source, before anything runs
    check_repository(repo)
    touched = subprocess.run(_git(repo, "log", "-1", "--format=%H", "--", pathspec),
                             capture_output=True, text=True, check=False)
    if touched.returncode != 0 or not touched.stdout.strip():
        raise BackfillError(f"no commit of {repo} touched {pathspec!r} (a path relative to "
                            "the repository root, e.g. catalogs/v8/lambda/vms.csv)"
                            + (f": {' '.join(touched.stderr.split())[:200]}"
                               if touched.returncode else ""))
    data_dir = Path(data_dir or default_data_dir())
    store = RawStore(data_dir)
    run_id = steps.new_run_id()
    cap = ingest_max_bytes()
    result = BackfillResult()
    started = time.perf_counter()
    origin = str(repo.resolve())
    blobs = Blobs(repo)
    try:
        with writer_lock(data_dir):
            with store.connect() as con:
                known = _known(con, source)
                for version in versions(repo, pathspec):
                    line = _load_one(store, con, blobs, version, source=source,
                                     provider=provider, run_id=run_id, cap=cap, force=force,
                                     known=known, origin=origin)
                    result.lines.append(line)
                    if say:
                        say(line)
            result.load_seconds = time.perf_counter() - started
            if publish:
                result.published = steps.build_and_publish(
                    data_dir, allow_shrink=allow_shrink or force)
    finally:
        blobs.close()
    return result


def _load_one(store: RawStore, con, blobs: Blobs, version: Version, *,  # type: ignore[no-untyped-def]
              source: str, provider: str | None, run_id: str, cap: int, force: bool,
              known: set[tuple], origin: str) -> CommitLine:
    name = payload_name(version.path, provider)
    at = version.committed_at
    error: SourceError | None = None
    try:
        content, size = blobs.read(version, cap)
    except NotAFileError as exc:
        content, size, error = None, 0, exc
    sha = hashlib.sha256(content).hexdigest() if content is not None else None
    if _key(name, sha, at) in known:
        return CommitLine(version, name, "skipped")
    known.add(_key(name, sha, at))
    url = f"{origin}@{version.commit}:{version.path}"  # git's COMMIT:PATH, in that clone
    if content is None:
        error = error or PayloadTooLargeError(
            f"{version.path} at {version.commit[:12]} is {size} bytes, above the ingest cap "
            f"of {cap} (GPUCOST_INGEST_MAX_BYTES raises it); not read")
        o = store.record_failure(con, run_id=run_id, source=source, mode="replay",
                                 started_at=steps.now(), finished_at=steps.now(), url=url,
                                 payload_name=name, error=error, observed_at=at)
        return CommitLine(version, name, "refused", error_type=o.error_type, error=o.error)
    ext = PurePosixPath(version.path).suffix.lstrip(".") or "bin"
    payload = Payload(name=name, content=content, url=url, ext=ext)
    (o,) = steps.load_payloads(store, con, run_id=run_id, source=source, payloads=[payload],
                               mode="replay", started_at=steps.now(), observed_at=at,
                               force=force)
    status = {"failed": "refused", "unchanged": "unchanged"}.get(o.status, "loaded")
    return CommitLine(version, name, status, o.rows_loaded, o.rows_rejected,
                      o.error_type, o.error)

