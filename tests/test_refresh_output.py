"""What a refresh and `gpucost sources` tell the user.

- Text is shortened at word boundaries, never mid-word.
"""

from __future__ import annotations

from flows.progress import shorten


def test_shorten_cuts_at_a_word_boundary():
    text = "UnreachableError: dstack-gpu-pricing.s3.eu-west-1.amazonaws.com unreachable: " \
           "DNS lookup failed (no network or unknown host)"
    short = shorten(text, 80)
    assert short.endswith(" ...") and len(short) <= 80
    kept = short.removesuffix(" ...")
    assert text.startswith(kept) and text[len(kept)] in " ,;:"  # cut between two words
    assert shorten("a  b\n c") == "a b c"
    long_word = "https://example.test/" + "x" * 200
    assert shorten(long_word, 50) == long_word  # one word longer than the width: kept whole
