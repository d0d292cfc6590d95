"""How a source's good live walk is described for the loopback tests.

Each source has `tests/fixtures/<source>/live.py` with `BASELINE` (the fixtures its baseline
is replayed from), `documents(base) -> Live` (every document its live fetch requests, served
good) and optionally `PARTS` (the parts its fixtures cover) and `baseline_files(tmp)`. The
fault matrix (tests/support/fault_matrix.py) and the contract test iterate these without knowing any
source by name: adding a source adds its folder.
"""

from __future__ import annotations

import importlib.util
import io
import zipfile
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import ModuleType

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@dataclass(frozen=True)
class Doc:
    """One document a source's live fetch requests."""

    path: str  # server path
    fmt: str  # json | csv | html | markup | zip | text
    good: bytes
    empty: bytes = b""  # the source's well-formed document with no offers / accelerators
    nav: bool = False  # navigation only (an index, a listing): content faults leave it good
    method: str = "GET"
    empty_label: str = ""  # how docs/reliability.md describes `empty` (else its first bytes)


@dataclass
class Live:
    env: dict[str, str]  # GPUCOST_SOURCE_URL_<suffix> -> server path
    docs: list[Doc] = field(default_factory=list)
    # other variables the live fetch needs, set as they are (a keyed source's dummy API key)
    extra_env: dict[str, str] = field(default_factory=dict)


def fixture(rel: str) -> bytes:
    return (FIXTURES / rel).read_bytes()


def make_zip(members: dict[str, bytes]) -> bytes:
    """A zip with fixed timestamps (the same members always give the same bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), content)
    return buffer.getvalue()


def first_lines(body: bytes, n: int) -> bytes:
    return b"".join(body.splitlines(keepends=True)[:n])


def list_table_header_only(body: bytes) -> bytes:
    """Only the document's list-tables, each cut after its header row: tables, no part."""
    out: list[bytes] = []
    rows_seen = 0
    in_table = False
    for line in body.splitlines(keepends=True):
        stripped = line.strip()
        if b"list-table" in stripped:
            in_table, rows_seen = True, 0
        elif in_table and (stripped == b"*" or stripped.startswith(b"* ")):
            rows_seen += 1
        elif in_table and stripped.startswith(b"```"):
            out.append(line)
            in_table = False
        if in_table and rows_seen <= 1:
            out.append(line)
    return b"".join(out)



@cache
def walk(source: str) -> ModuleType:
    """tests/fixtures/<source>/live.py (KeyError when the source has none)."""
    path = FIXTURES / source / "live.py"
    if not path.is_file():
        raise KeyError(f"no live walk for source {source!r}: add tests/fixtures/{source}/live.py")
    spec = importlib.util.spec_from_file_location(f"live_walk_{source}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def walks() -> dict[str, ModuleType]:
    """Every source that describes its live walk, by name."""
    return {p.parent.name: walk(p.parent.name) for p in sorted(FIXTURES.glob("*/live.py"))}
