"""Token measures of large texts, and cuts that never split a character, a CRLF or a combining sequence."""

from __future__ import annotations

import unicodedata

from .._tokens import TokenCounter

__all__ = ["count_tokens", "fit_prefix", "over_budget", "safe_cut"]

_CHUNK = 200_000
"""Token counters are fed at most this many characters at a time (some refuse ~1M-character inputs)."""
_SAMPLES = 8
_MAX_CHARS_PER_TOKEN = 32
"""A prefix fitted to N tokens never exceeds N * this many characters (whitespace runs pack densely)."""
_BACKOFF = 32
_JOINERS = frozenset("\u200c\u200d")


def count_tokens(text: str, counter: TokenCounter) -> int:
    """Tokens of `text`: exact up to a few hundred thousand characters, then extrapolated from samples."""
    if len(text) <= 2 * _CHUNK:
        return sum(counter.count(text[start : start + _CHUNK]) for start in range(0, len(text), _CHUNK))
    size = _CHUNK // 4
    step = (len(text) - size) // (_SAMPLES - 1)
    sampled = sum(counter.count(text[start : start + size]) for start in range(0, step * _SAMPLES, step))
    return round(sampled * len(text) / (size * _SAMPLES))


def over_budget(text: str, budget: int, counter: TokenCounter) -> bool:
    """True when `text` costs more than `budget` tokens (cheap for huge texts: only a prefix is counted)."""
    if len(text) <= budget:  # a token is at least one character
        return False
    head = text[: budget * _MAX_CHARS_PER_TOKEN + 1]
    if counter.count(head) > budget:
        return True
    return len(head) < len(text) and count_tokens(text, counter) > budget


def safe_cut(text: str, index: int) -> int:
    """The cut position at or before `index` that splits no CRLF pair and no combining sequence.

    Positions are code points, so a UTF-8 character is never split. If no safe point lies
    within a few characters (a long run of marks and joiners), `index` itself is returned so
    callers always make progress, moved one back if it would split a CRLF pair.
    """
    index = max(0, min(index, len(text)))
    for cut in range(index, max(index - _BACKOFF, 0), -1):
        if cut >= len(text) or _safe_between(text[cut - 1], text[cut]):
            return cut
    if 1 < index < len(text) and text[index - 1] == "\r" and text[index] == "\n":
        return index - 1
    return index


def fit_prefix(text: str, max_tokens: int, counter: TokenCounter, *, prefer_line_end: bool = True) -> int:
    """Length of the longest safe prefix of `text` costing at most `max_tokens` tokens.

    With `prefer_line_end`, a prefix that cuts a line short is shortened to the last line end
    in its second half, so previews and pages end on whole lines where they can.
    """
    limit = min(len(text), max_tokens * _MAX_CHARS_PER_TOKEN)
    if counter.count(text[:limit]) <= max_tokens:
        fitted = limit
    else:
        low, high = 0, limit  # text[:low] fits, text[:high] does not
        while high - low > 1:
            middle = (low + high) // 2
            if counter.count(text[:middle]) <= max_tokens:
                low = middle
            else:
                high = middle
        fitted = low
    if fitted >= len(text):
        return len(text)
    if prefer_line_end:
        newline = text.rfind("\n", 0, fitted)
        if newline >= fitted // 2:
            return newline + 1
    return safe_cut(text, fitted)


def _safe_between(before: str, after: str) -> bool:
    if before == "\r" and after == "\n":
        return False
    if before in _JOINERS or after in _JOINERS:
        return False
    if unicodedata.combining(after) or unicodedata.category(after) in ("Mn", "Me", "Mc"):
        return False
    codepoint = ord(after)
    variation = 0xFE00 <= codepoint <= 0xFE0F or 0xE0100 <= codepoint <= 0xE01EF
    skin_tone = 0x1F3FB <= codepoint <= 0x1F3FF
    return not (variation or skin_tone)
