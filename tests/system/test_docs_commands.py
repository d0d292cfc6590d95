"""Every shell command in README.md and docs/*.md runs as written.

Each ```sh / ```bash / ```console block of those files is split into commands (a trailing
backslash or an open quote continues a command on the next line; in ```console blocks only
`$ ` lines are commands). Every command is one test, run from the repository root against one
module-scoped warehouse in a temporary GPUCOST_DATA_DIR:

* `gpucost ingest ...` commands of the docs build that warehouse: they run first, in process,
  on the recorded files in ../shared/data (read in place), with the rebuild deferred, then the
  warehouse is published once (one publish instead of one per command keeps the module fast);
* other `gpucost ...` commands run in process through the CLI entry point (`main(argv)`, the
  shell's globbing done here), stdout and stderr captured;
* a command that needs a shell (a pipe, a redirection, `$VAR`) runs in `bash -c` with the
  virtualenv first on PATH; so do the few other programs listed in SAFE_PROGRAMS;
* a command may regenerate a page (`python scripts/validation_doc.py`): it passes only
  when the committed page is already what it writes (the page is put back either way);
* nothing touches the internet: the live HTTP fetch is replaced by one that fails at once as
  if offline (in the subprocesses every source URL points at a closed local port), so
  `gpucost refresh` runs exactly as it does on a machine without network.

A command must exit 0, or the code its trailing comment starts with (`# exit 3 ...`).
`make` lines are not run (they would run the suite or a refresh recursively). A command is
skipped only with a reason in the doc: `# docs-test: skip (why)` after it, or a line
`# docs-test: skip-block (why)` inside its block. Any other program fails the test, so a new
kind of command is either run here or marked on purpose.

PENDING lists commands the docs already describe but that the code does not have yet; they
are expected to fail (strict: once one passes, remove it from the list).
"""

from __future__ import annotations

import contextlib
import glob
import importlib
import io
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

# Commands written in the docs for code that is not merged yet (none today).
PENDING: set[str] = set()

REPO = Path(__file__).resolve().parents[2]
SHARED_DATA = REPO.parent / "shared" / "data"
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
SHELL_LANGS = {"sh", "bash", "console"}
GPUCOST = {"gpucost", ".venv/bin/gpucost"}
# programs the docs may use besides gpucost (run in a subprocess)
SAFE_PROGRAMS = {"gpucost", ".venv/bin/gpucost", "python", ".venv/bin/python",
                 "duckdb", ".venv/bin/duckdb"}  # duckdb: the 1.4 CLI of requirements.lock
README_MAX_LINES = 250

_FENCE = re.compile(r"^```(\S*)\s*$")
_EXIT = re.compile(r"^exit\s+(\d+)\b")
_SKIP = re.compile(r"docs-test:\s*skip\s*\((?P<why>[^)]+)\)")
_SKIP_BLOCK = re.compile(r"^#\s*docs-test:\s*skip-block\s*\((?P<why>[^)]+)\)")
_PLACEHOLDER = re.compile(r"<[A-Za-z][\w.-]*>")


def _module(name: str):  # type: ignore[no-untyped-def]
    """`gpucost.<name>` once the package is renamed, the top-level module until then."""
    try:
        return importlib.import_module(f"gpucost.{name}")
    except ModuleNotFoundError as exc:
        if not (exc.name or "").startswith("gpucost"):
            raise
        return importlib.import_module(name)


@dataclass(frozen=True)
class Command:
    doc: str        # file name relative to the repo
    line: int       # 1-based line of the command's first line
    text: str       # the command without its trailing comment, whitespace collapsed
    raw: str        # the command as written (continuations joined)
    expect: int     # expected exit code
    skip: str | None

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.line}"


def _split_comment(text: str) -> tuple[str, str]:
    """(code, comment) at the first unquoted `#` that starts a word."""
    quote = None
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
            elif ch == "\\" and quote == '"':
                continue
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1].isspace()):
            return text[:i].rstrip(), text[i + 1:].strip()
    return text.rstrip(), ""


def _shell_features(code: str) -> bool:
    """True when the command needs a shell: a pipe, redirection, list, or an expansion."""
    quote = None
    for ch in code:
        if quote == "'":
            if ch == "'":
                quote = None
            continue
        if quote == '"':
            if ch == '"':
                quote = None
            elif ch in "$`":
                return True
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "|<>;&$`":
            return True
    return False


def _complete(text: str) -> bool:
    if text.endswith("\\"):
        return False
    try:
        shlex.split(text, comments=True)
    except ValueError:  # an open quote: the command goes on on the next line
        return False
    return True


def extract(path: Path) -> list[Command]:
    """The commands of every shell block of one Markdown file."""
    doc = path.relative_to(REPO).as_posix()
    lines = path.read_text(encoding="utf-8").splitlines()
    commands: list[Command] = []
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        lang, start = fence.group(1), i + 1
        end = start
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        if lang in SHELL_LANGS:
            commands += _block_commands(doc, lang, lines[start:end], start + 1)
        i = end + 1
    return commands


def _block_commands(doc: str, lang: str, block: list[str], first_line: int) -> list[Command]:
    block_skip = next((m.group("why") for m in map(_SKIP_BLOCK.match, block) if m), None)
    out: list[Command] = []
    j = 0
    while j < len(block):
        line, lineno = block[j], first_line + j
        j += 1
        stripped = line.strip()
        if lang == "console":
            if not stripped.startswith("$ "):
                continue
            stripped = stripped[2:]
        if not stripped or stripped.startswith("#"):
            continue
        text = stripped
        while not _complete(text) and j < len(block):
            nxt = block[j].rstrip()
            if lang == "console":
                nxt = nxt.removeprefix("> ")
            j += 1
            if text.endswith("\\"):  # a continued line: one command line
                text = text[:-1].rstrip() + " " + nxt.strip()
            else:  # inside an open quote: the newline and indentation are part of it
                text = text + "\n" + nxt
        code, comment = _split_comment(text)
        exit_match = _EXIT.match(comment)
        skip_match = _SKIP.search(comment)
        skip = block_skip or (skip_match.group("why") if skip_match else None)
        if skip is None and shlex.split(code)[0] == "make":
            skip = "make targets are not run from the test suite (they run it, or a refresh)"
        out.append(Command(doc, lineno, " ".join(code.split()), code,
                           int(exit_match.group(1)) if exit_match else 0, skip))
    return out


COMMANDS = [c for path in DOCS for c in extract(path)]


def _is_inprocess(cmd: Command) -> bool:
    return not _shell_features(cmd.raw) and shlex.split(cmd.raw)[0] in GPUCOST


def _is_ingest(cmd: Command) -> bool:
    return _is_inprocess(cmd) and shlex.split(cmd.raw)[1:2] == ["ingest"]


def _argv(cmd: Command) -> list[str]:
    argv: list[str] = []
    for token in shlex.split(cmd.raw)[1:]:
        matches = sorted(glob.glob(token)) if any(c in token for c in "*?[") else []
        argv += matches or [token]  # like bash: an unmatched pattern stays as written
    return argv


def _run_inprocess(argv: list[str]) -> tuple[int, str, str]:
    cli = _module("gpucost.flows.cli.main")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv)
        except SystemExit as exc:  # argparse: --help, usage errors
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return int(code), out.getvalue(), err.getvalue()


def _programs(code: str) -> list[str]:
    """First word of every simple command of a shell line (split at | ; && ||)."""
    words = []
    for part in re.split(r"\|\|?|;|&&", code):
        tokens = shlex.split(part.split("<")[0].split(">")[0]) if part.strip() else []
        if tokens:
            words.append(tokens[0])
    return words


def _run_shell(cmd: Command, data_dir: Path) -> tuple[int, str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["GPUCOST_DATA_DIR"] = str(data_dir)
    sources = _module("gpucost.catalog.sources")
    for name in sources.names():  # a subprocess never reaches the internet either
        env[f"GPUCOST_SOURCE_URL_{name.upper()}"] = "http://127.0.0.1:9/"
    env["GPUCOST_SOURCE_URL_CROSSCHECK_CLOUDGPUS"] = "http://127.0.0.1:9/"
    proc = subprocess.run(["bash", "-c", cmd.raw], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)
    return proc.returncode, proc.stdout, proc.stderr


def _offline_fetch(url: str, *args: object, **kwargs: object) -> object:
    records = _module("gpucost.catalog.records")
    raise records.UnreachableError(
        f"{urlsplit(url).netloc} unreachable: offline (tests/system/test_docs_commands.py)")


@dataclass
class Warehouse:
    data_dir: Path
    ingested: dict[str, tuple[int, str, str]]  # Command.where -> (exit code, stdout, stderr)


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory,
              request: pytest.FixtureRequest) -> Warehouse:
    if not SHARED_DATA.is_dir():
        request.getfixturevalue("shared_data")  # skips, or fails under CI
    data = tmp_path_factory.mktemp("docs-commands")
    steps = _module("gpucost.flows.steps")
    mp = pytest.MonkeyPatch()
    mp.setenv("GPUCOST_DATA_DIR", str(data))
    mp.chdir(REPO)
    mp.setattr(_module("gpucost.catalog.http"), "fetch", _offline_fetch)
    ingested = {}
    with pytest.MonkeyPatch.context() as deferred:
        deferred.setattr(steps, "build_and_publish", lambda data_dir, **kwargs: None)
        for cmd in COMMANDS:
            if _is_ingest(cmd) and cmd.skip is None:
                ingested[cmd.where] = _run_inprocess(_argv(cmd))
    steps.build_and_publish(data)
    yield Warehouse(data, ingested)
    mp.undo()


def _param(cmd: Command):  # type: ignore[no-untyped-def]
    marks = []
    if cmd.text in PENDING:
        marks.append(pytest.mark.xfail(strict=True, reason="PENDING: not in the code yet"))
    return pytest.param(cmd, id=f"{cmd.where} {cmd.text[:60]}", marks=marks)


@pytest.mark.parametrize("cmd", [_param(c) for c in COMMANDS])
def test_command_runs_as_written(cmd: Command, warehouse: Warehouse) -> None:
    if cmd.skip:
        pytest.skip(f"{cmd.where}: {cmd.skip}")
    before = {path: path.read_bytes() for path in DOCS}
    if _is_ingest(cmd):
        code, out, err = warehouse.ingested[cmd.where]
    elif _is_inprocess(cmd):
        code, out, err = _run_inprocess(_argv(cmd))
    else:
        unknown = [p for p in _programs(cmd.raw) if p not in SAFE_PROGRAMS]
        assert not unknown, (
            f"{cmd.where}: `{cmd.text}` runs {unknown}: add the program to SAFE_PROGRAMS if "
            "it is safe to run here, or mark the line `# docs-test: skip (why)`")
        code, out, err = _run_shell(cmd, warehouse.data_dir)
    changed = [path for path, content in before.items() if path.read_bytes() != content]
    for path in changed:  # a generator that found its page stale: put the page back
        path.write_bytes(before[path])
    assert not changed, (
        f"{cmd.where}: `{cmd.text}` changed {[p.name for p in changed]}: the committed page is "
        "stale; run the command and commit the result")
    assert code == cmd.expect, (
        f"{cmd.where}: `{cmd.text}` exited {code}, the doc expects {cmd.expect}\n"
        f"--- stdout\n{out[-3000:]}\n--- stderr\n{err[-3000:]}")


def test_every_page_has_tested_commands() -> None:
    run = [c for c in COMMANDS if not c.skip]
    assert len(run) >= 40, f"only {len(run)} commands found: is the extraction broken?"
    for path in DOCS:
        doc = path.relative_to(REPO).as_posix()
        if doc in {"README.md", "docs/sources.md", "docs/cost-models.md",
                   "docs/operations.md", "docs/architecture.md"}:
            assert any(c.doc == doc for c in run), f"{doc} has no tested command"


def test_skips_are_rare_and_say_why() -> None:
    skipped = [c for c in COMMANDS if c.skip and not c.skip.startswith("make targets")]
    assert len(skipped) <= 15, [f"{c.where} {c.text}" for c in skipped]
    assert all(len(c.skip or "") >= 10 for c in skipped)


def test_tested_commands_have_no_placeholders() -> None:
    bad = [f"{c.where}: {c.text}" for c in COMMANDS
           if not c.skip and _PLACEHOLDER.search(c.raw.replace("<>", ""))]
    assert not bad, "use real paths (../shared/data/...) instead of placeholders:\n" + \
        "\n".join(bad)


def test_pending_commands_are_in_the_docs() -> None:
    written = {c.text for c in COMMANDS}
    assert PENDING <= written, f"PENDING names commands no doc has: {PENDING - written}"


def test_readme_stays_short() -> None:
    n = len((REPO / "README.md").read_text(encoding="utf-8").splitlines())
    assert n <= README_MAX_LINES, f"README.md has {n} lines (at most {README_MAX_LINES})"
