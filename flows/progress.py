"""What a refresh shows on the terminal: one console for progress and log lines.

`setup_console()` (called by the `refresh` and `ingest` commands) makes every log record of the
process, Prefect's included, go through one rich console on stderr, in place of Prefect's own
console handler:

- by default it shows warnings and errors only, and leaves out what the run summary already
  says: a source's expected failure (a record carrying a catalog SourceError: unreachable,
  refused, empty...) and Prefect's "Finished in state ..." lines. Unexpected exceptions (bugs)
  still show with their traceback. Prefect's INFO lines (temporary server start and stop, flow
  and task runs beginning) still reach the Prefect API and UI; they are not printed.
- `--verbose` shows every record from INFO up, unfiltered.

The progress display (only when stderr is a terminal; rich, installed with Prefect) uses the
same console: log lines print above it, never into the bar line. It shows a bar for the
fetches and one line per source as it finishes; these vanish when the run ends, and the run
summary (on stdout) takes their place. Scheduled and piped runs get no progress display.
"""

from __future__ import annotations

import functools
import logging
import sys
from typing import IO, Any

from gpucost.flows.cli.terminal import safe, safe_lines

SHORT_ERROR_CHARS = 130



@functools.cache
def source_column() -> int:
    """Width of the source-name column: the longest registered name ('reference' included)."""
    from gpucost.catalog import sources

    return max(len(n) for n in [*sources.names(), "reference"])


def shorten(text: str, width: int = SHORT_ERROR_CHARS) -> str:
    """`text` on one line, at most about `width` characters, cut at a word boundary ("...").

    A first word longer than `width` (a long URL) is kept whole rather than cut. Known secrets
    (API keys, credentials inside URLs) are masked.
    """
    from gpucost.catalog.secrets import redact

    words = redact(str(text)).split()
    line = " ".join(words)
    if len(line) <= width:
        return line
    kept: list[str] = []
    size = 0
    for word in words:
        if kept and size + 1 + len(word) > width - 4:
            break
        kept.append(word)
        size += len(word) + (1 if size else 0)
    if len(kept) == len(words):
        return line
    return " ".join(kept).rstrip(",;:") + " ..."


def describe_fetch(result: Any) -> tuple[bool, str]:
    """(ok, short text) for what one source's fetch returned (Fetched or an exception)."""
    if isinstance(result, BaseException):
        return False, safe(shorten(f"{type(result).__name__}: {result}"))
    payloads = len(getattr(result, "payloads", []))
    errors = getattr(result, "errors", {}) or {}
    text = f"{payloads} payload{'s' if payloads != 1 else ''}"
    if errors:
        text += f", {len(errors)} part{'s' if len(errors) != 1 else ''} failed"
    return True, text


# ---- one console ------------------------------------------------------------------------
_consoles: dict[int, Any] = {}
_STDERR = -1  # key of the console that writes to whatever sys.stderr is when it prints


def console_for(stream: IO[str] | None = None) -> Any:
    """The rich Console writing to `stream`, one per stream, shared by progress and logs.

    For stderr (None or sys.stderr) it is one console that looks sys.stderr up each time it
    prints (so it follows a stream replaced later, as pytest's capture does)."""
    from rich.console import Console

    options = {"highlight": False, "markup": False, "emoji": False, "soft_wrap": True}
    if stream is None or stream is sys.stderr:
        if _STDERR not in _consoles:
            _consoles[_STDERR] = Console(stderr=True, **options)
        return _consoles[_STDERR]
    console = _consoles.get(id(stream))
    if console is None or console.file is not stream:
        console = Console(file=stream, **options)
        _consoles[id(stream)] = console
    return console


def _is_expected_source_failure(record: logging.LogRecord) -> bool:
    from gpucost.catalog.records import SourceError

    args = record.args if isinstance(record.args, tuple) else (record.args,)
    if any(isinstance(a, SourceError) for a in args):
        return True
    exc = record.exc_info[1] if record.exc_info else None
    return isinstance(exc, SourceError)


def _is_prefect_state_line(record: logging.LogRecord) -> bool:
    return (record.name.startswith(("prefect.task_runs", "prefect.flow_runs"))
            and str(record.msg).startswith("Finished in state"))


class ConsoleLogHandler(logging.Handler):
    """Log records as one line each (`warning: ...`) on the shared console.

    Unless verbose, records the run summary already reports are left out (see module doc).
    """

    def __init__(self, console: Any, verbose: bool = False) -> None:
        super().__init__(logging.INFO if verbose else logging.WARNING)
        self.console = console
        self.verbose = verbose
        # Prefect's setup_logging keeps a root handler that has a formatter (a user handler)
        self.setFormatter(logging.Formatter("%(message)s"))

    def filter(self, record: logging.LogRecord) -> bool:
        if not super().filter(record):
            return False
        if self.verbose:
            return True
        return not (_is_expected_source_failure(record) or _is_prefect_state_line(record))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            # a log line may quote remote bytes (an error text, a header): one safe line;
            # a traceback keeps its lines, each made safe (flows/cli/terminal.py)
            message = safe(record.getMessage())
            run = getattr(record, "task_run_name", None) or getattr(record, "flow_run_name", None)
            text = f"{record.levelname.lower()}: " + (f"{safe(run)}: " if run else "") + message
            if record.exc_info:
                text += "\n" + safe_lines(logging.Formatter().formatException(record.exc_info))
            self.console.print(text, soft_wrap=True)
        except RecursionError:
            raise
        except Exception:
            self.handleError(record)


def setup_console(verbose: bool = False, stream: IO[str] | None = None) -> Any:
    """Route every log record of this process through one console on `stream` (stderr).

    Our handler goes on the root logger. Prefect, when it is imported later, sees a handler
    there and adds no console handler of its own (prefect.logging.configuration); when it is
    already imported, its console handler is taken off. Its API handler stays either way, so
    the Prefect UI keeps every INFO line of the flow and task runs. Returns the console.
    """
    console = console_for(stream)
    root = logging.getLogger()
    prefect_handler: type | None = None
    if "prefect" in sys.modules:  # not imported just for this: `ingest` does not need it
        from prefect.logging.handlers import PrefectConsoleHandler

        prefect_handler = PrefectConsoleHandler
    for handler in list(root.handlers):
        if isinstance(handler, ConsoleLogHandler) or (
                prefect_handler and isinstance(handler, prefect_handler)):
            root.removeHandler(handler)
    root.addHandler(ConsoleLogHandler(console, verbose))
    return console


# ---- progress -----------------------------------------------------------------------------
class FetchProgress:
    """Called by the refresh: step(text), start(names), fetched(name, result), close()."""

    def start(self, names: list[str]) -> None:  # pragma: no cover - interface
        pass

    def fetched(self, name: str, result: Any) -> None:  # pragma: no cover - interface
        pass

    def step(self, text: str) -> None:  # pragma: no cover - interface
        pass

    def close(self) -> None:  # pragma: no cover - interface
        pass


class RichFetchProgress(FetchProgress):
    """A spinner and bar with one line per finished source above it, all transient."""

    MAX_LINES = 20

    def __init__(self, stream: IO[str]):
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        lines: list[Any] = []

        class _Progress(Progress):
            def get_renderables(self):  # type: ignore[no-untyped-def]
                yield from lines[-RichFetchProgress.MAX_LINES:]
                yield self.make_tasks_table(self.tasks)

        self.lines = lines
        self.console = console_for(stream)
        self.progress = _Progress(
            SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
            MofNCompleteColumn(), TimeElapsedColumn(), console=self.console, transient=True,
        )
        self.task: Any = None
        self.started = False

    def _ensure_started(self, description: str, total: float | None) -> None:
        if not self.started:
            self.progress.start()
            self.started = True
        if self.task is None:
            self.task = self.progress.add_task(description, total=total)
        else:
            self.progress.update(self.task, description=description, total=total, completed=0)

    def start(self, names: list[str]) -> None:
        self._ensure_started(f"fetching {len(names)} source(s)", max(1, len(names)))
        if not names:
            self.progress.update(self.task, completed=1)

    def fetched(self, name: str, result: Any) -> None:
        from rich.text import Text

        ok, text = describe_fetch(result)
        line = Text(f"  {name:<{source_column()}} ")
        line.append("ok" if ok else "failed", style="green" if ok else "red")
        line.append(f"  {text}")
        self.lines.append(line)
        if self.task is not None:
            self.progress.advance(self.task)
        self.progress.refresh()

    def step(self, text: str) -> None:
        if self.task is None:
            self._ensure_started(text, None)
        else:
            self.progress.update(self.task, description=text)

    def close(self) -> None:
        if self.started:
            self.progress.stop()
            self.started = False


def for_terminal(stream: IO[str] | None = None) -> FetchProgress | None:
    """A progress display on `stream` (stderr) when it is a terminal, else None."""
    stream = stream or sys.stderr
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    return RichFetchProgress(stream) if tty else None
