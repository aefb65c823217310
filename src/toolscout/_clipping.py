"""Small text helpers for what the model reads: clipping and one-line summaries."""

from __future__ import annotations

import re

__all__ = ["clip", "one_line", "summary"]

_WS = re.compile(r"\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def one_line(text: str) -> str:
    """Collapse whitespace and drop control characters (untrusted text must not break our layout)."""
    return _WS.sub(" ", _CONTROL.sub("", text)).strip()


def clip(text: str, limit: int) -> str:
    """Cut `text` to at most `limit` characters at a word boundary, marking the cut with "…"."""
    if len(text) <= limit:
        return text
    cut = text[: max(limit - 1, 1)]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:-") + "…"


def summary(text: str, limit: int) -> str:
    """The first sentence of `text` on one line, clipped to `limit` characters."""
    flat = one_line(text)
    first = _SENTENCE_END.split(flat, maxsplit=1)[0] if flat else ""
    return clip(first, limit)
