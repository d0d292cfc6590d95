"""Files the project writes in the data directory, created without following links.

A symbolic link (or any other entry) planted at the name gpucost is about to write, such as
`<data dir>/published.json.tmp`, must never be written through into the link's target. Two
ways, one per kind of writer:

* `write_atomic(path, data)`: the whole file at once, under a fresh random name in the same
  folder (tempfile.mkstemp: O_CREAT | O_EXCL, which never follows a link), fsynced, then
  renamed over `path` with os.replace (a link at `path` is replaced, not written through).
* `clear_name(path)`: for a file another writer creates at a fixed name (DuckDB's COPY TO,
  an export staged under a temporary name): whatever is at that name (a planted link, a
  file left by a crash) is removed first, never followed.
* `open_exclusive(path)`: a new file at a fixed name, after `clear_name`, opened with
  O_CREAT | O_EXCL | O_NOFOLLOW (a link planted in between fails the open).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import IO

FILE_MODE = 0o644


def clear_name(path: Path) -> None:
    """Remove whatever is at `path` (a file, a symbolic link: the link itself, never its
    target); a directory there is left alone (the write then fails by name)."""
    with contextlib.suppress(FileNotFoundError, IsADirectoryError):
        if Path(path).is_symlink() or not Path(path).is_dir():
            os.unlink(path)


def open_exclusive(path: Path, binary: bool = False) -> IO:
    """A new file at `path` for writing, never through a link: the name cleared first, then
    created exclusively (O_EXCL | O_NOFOLLOW)."""
    clear_name(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
    return os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8")


def write_atomic(path: Path, data: bytes | str, mode: int = FILE_MODE) -> None:
    """Write `data` to `path` whole or not at all, never through a link (module docstring)."""
    path = Path(path)
    body = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.tmp-")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(body)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
