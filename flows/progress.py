"""Progress of a refresh on stderr, only when stderr is a terminal (rich, already installed with
Prefect). Scheduled and piped runs print nothing extra: their summary is the record.

One bar for the fetches (sources done / total, elapsed time) and one line per source as it
finishes; then a line per later step (loading, building, publishing).
"""

from __future__ import annotations

import sys
from typing import IO, Any

SHORT_ERROR_CHARS = 130


def shorten(text: str, width: int = SHORT_ERROR_CHARS) -> str:
    """`text` on one line, at most about `width` characters, cut at a word boundary ("...").

    A first word longer than `width` (a long URL) is kept whole rather than cut.
    """
    words = str(text).split()
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


class FetchProgress:
    """Called by the refresh: start(names), fetched(name, result) per source, step(text)."""

    def start(self, names: list[str]) -> None:  # pragma: no cover - interface
        pass

    def fetched(self, name: str, result: Any) -> None:  # pragma: no cover - interface
        pass

    def step(self, text: str) -> None:  # pragma: no cover - interface
        pass

    def close(self) -> None:  # pragma: no cover - interface
        pass


def describe_fetch(result: Any) -> tuple[bool, str]:
    """(ok, short text) for what one source's fetch returned (Fetched or an exception)."""
    if isinstance(result, BaseException):
        return False, shorten(f"{type(result).__name__}: {result}")
    payloads = len(getattr(result, "payloads", []))
    errors = getattr(result, "errors", {}) or {}
    text = f"{payloads} payload{'s' if payloads != 1 else ''}"
    if errors:
        text += f", {len(errors)} part{'s' if len(errors) != 1 else ''} failed"
    return True, text


class RichFetchProgress(FetchProgress):
    def __init__(self, stream: IO[str]):
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        self.console = Console(file=stream, highlight=False)
        self.progress = Progress(
            SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
            MofNCompleteColumn(), TimeElapsedColumn(), console=self.console, transient=True,
        )
        self.task: Any = None

    def start(self, names: list[str]) -> None:
        self.progress.start()
        self.task = self.progress.add_task(f"fetching {len(names)} source(s)",
                                           total=max(1, len(names)))
        if not names:
            self.progress.update(self.task, completed=1)

    def fetched(self, name: str, result: Any) -> None:
        from rich.markup import escape

        ok, text = describe_fetch(result)
        text, name = escape(text), escape(name)
        mark = "[green]ok[/green]" if ok else "[red]failed[/red]"
        self.console.print(f"  {name:<12} {mark}  {text}", markup=True, highlight=False)
        if self.task is not None:
            self.progress.advance(self.task)

    def step(self, text: str) -> None:
        if self.task is not None:
            self.progress.update(self.task, description=text)

    def close(self) -> None:
        self.progress.stop()


def for_terminal(stream: IO[str] | None = None) -> FetchProgress | None:
    """A progress display on `stream` (stderr) when it is a terminal, else None."""
    stream = stream or sys.stderr
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    return RichFetchProgress(stream) if tty else None
