"""Terminal-safe text: what reaches the operator's terminal never carries a control sequence.

Payload strings (a sku, a region, a GPU name, an error message quoting a header or a body) are
remote bytes. Printed raw, an ESC sequence clears the screen or sets the window title, a BEL
rings, a CR or LF inside a value paints a fake row, a bidi override (U+202E) reverses what
follows. Every value or error text the commands print to a terminal goes through `safe`
(one value, one line: every control and bidi character shown escaped, `\\x1b`, `\\r`, `\\n`,
`\\u202e`); program text of several lines goes through `safe_lines` (the line breaks kept,
everything else escaped). CSV and JSON outputs keep the data exact (the csv module quotes,
json.dumps escapes) and are not filtered.

Escaped: C0 controls (U+0000-U+001F, tab and newline included), DEL, C1 controls
(U+0080-U+009F, U+009B being a one-byte CSI), the bidi marks, embeddings, overrides and
isolates (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) and the line and paragraph
separators U+2028, U+2029.

`SafeStream` is a second layer: a text stream wrapper that passes every write through
`safe_lines`, put on stdout by the CLI for the human-readable formats (flows/cli/main.py), so a
printer that forgot `safe` still cannot emit an escape sequence (but a newline inside a value
would still break its line: the table renderers escape each value themselves).
"""

from __future__ import annotations

import re
from typing import IO, Any

UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                    "\u2066-\u2069]")
UNSAFE_BUT_NEWLINE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                                "\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe(value: object) -> str:
    """`value` as one terminal-safe line: every control or bidi character escaped (ESC ->
    `\\x1b`, CR -> `\\r`, LF -> `\\n`, U+202E -> `\\u202e`); None -> ""."""
    text = "" if value is None else str(value)
    return UNSAFE.sub(_escape, text)


def safe_lines(text: object) -> str:
    """Program text of several lines made terminal-safe: the line feeds kept, every other
    control or bidi character escaped (a CR before a LF too)."""
    text = "" if text is None else str(text)
    return UNSAFE_BUT_NEWLINE.sub(_escape, text)


def one_line(text: object) -> str:
    """An error text as one safe line: whitespace runs (newlines included) become one space,
    then what is left of control characters is escaped."""
    return safe(" ".join(str(text).split()))


class SafeStream:
    """A text stream that writes `safe_lines(s)` to the stream it wraps (stdout of the human
    formats); everything else (flush, fileno, isatty, encoding...) is the wrapped stream's."""

    def __init__(self, stream: IO[str]) -> None:
        self.wrapped = stream

    def write(self, s: str) -> int:
        self.wrapped.write(safe_lines(s))
        return len(s)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)
