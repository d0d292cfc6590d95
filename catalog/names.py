"""The normalised key of a name (an accelerator spelling, an alias, a provider): the Python
twin of the SQL macro models/macros/name_key.sql, so that Python and SQL compare the same
keys (tests/models/test_models.py asserts they agree on every curated spelling)."""

from __future__ import annotations

import re

_NON_KEY = re.compile(r"[^a-z0-9]")


def name_key(text: str | None) -> str:
    """Lowercase, ASCII letters and digits only: "NVIDIA H100-SXM5 80GB" -> 'nvidiah100sxm580gb';
    None -> ''."""
    return _NON_KEY.sub("", (text or "").lower())
