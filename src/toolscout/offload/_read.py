"""Read a range of a stored text output, by lines or by characters, within a token cap.

The text returned is an exact slice of the output (line ends included), so the pages joined
in order are the output itself. Each answer says where the next page starts.
"""

from __future__ import annotations

from .._texts import Offload
from .._tokens import TokenCounter
from .._types import JsonObject
from ..dispatch import ToolError
from ._document import Document
from ._measure import fit_prefix, safe_cut

__all__ = ["read_chars", "read_lines"]

_TOOL = "output_read"
_MAX_CHARS_PER_TOKEN = 32


def read_lines(
    document: Document, *, start_line: int = 1, lines: int | None = None, max_tokens: int, counter: TokenCounter
) -> JsonObject | ToolError:
    """Lines `start_line`.. (1-based, `lines` of them or as many as fit), cut to `max_tokens`."""
    if start_line > document.lines:
        return _error(Offload.line_past_end(start_line, document.lines), Offload.SMALLER_LINE)
    last = document.lines if lines is None else min(document.lines, start_line + lines - 1)
    start = document.line_start(start_line)
    text, capped = _decode(document, start, document.line_start(last + 1), max_tokens)
    kept = _fit(text, max_tokens, counter, prefer_line_end=True)
    piece = text[:kept]
    answer: JsonObject = {"start_line": start_line, "total_lines": document.lines}
    if kept == len(text) and not capped:
        answer.update(end_line=last, text=piece)
        answer["next"] = {"start_line": last + 1} if last < document.lines else None
        return answer
    if piece.endswith("\n"):
        end_line = start_line + piece.count("\n") - 1
        answer.update(end_line=end_line, text=piece, next={"start_line": end_line + 1}, truncated=True)
        return answer
    end_line = start_line + piece.count("\n")
    resume = document.char_of(start) + len(piece)
    answer.update(end_line=end_line, text=piece, partial_line=True, next={"offset": resume}, truncated=True)
    return answer


def read_chars(
    document: Document, *, offset: int, length: int | None = None, max_tokens: int, counter: TokenCounter
) -> JsonObject | ToolError:
    """Characters `offset`.. (0-based, `length` of them or as many as fit), cut to `max_tokens`."""
    total = document.text_chars
    if offset > total or (offset == total and total > 0):
        return _error(Offload.offset_past_end(offset, total), Offload.SMALLER_OFFSET)
    end = total if length is None else min(total, offset + length)
    start_byte = document.byte_of(offset)
    text, _ = _decode(document, start_byte, document.byte_of(end), max_tokens)
    kept = _fit(text, max_tokens, counter, prefer_line_end=False)
    piece = text[:kept]
    stop = offset + len(piece)
    answer: JsonObject = {
        "offset": offset,
        "end_offset": stop,
        "total_chars": total,
        "line": document.line_of(start_byte),
        "text": piece,
        "next": {"offset": stop} if stop < total else None,
    }
    if stop < end:
        answer["truncated"] = True
    return answer


def _decode(document: Document, start: int, end: int, max_tokens: int) -> tuple[str, bool]:
    """The text between two byte offsets, never decoding more than a page can hold; True if capped."""
    cap = start + max_tokens * _MAX_CHARS_PER_TOKEN * 4
    if end <= cap:
        return document.text(start, end), False
    while cap > start and document.data[cap] & 0xC0 == 0x80:
        cap -= 1
    return document.text(start, cap), True


def _fit(text: str, max_tokens: int, counter: TokenCounter, *, prefer_line_end: bool) -> int:
    """How much of `text` to return: what fits, but always at least one whole character sequence."""
    kept = fit_prefix(text, max_tokens, counter, prefer_line_end=prefer_line_end)
    if kept == 0 and text:
        kept = next((cut for cut in range(1, len(text) + 1) if safe_cut(text, cut) == cut), len(text))
    return kept


def _error(message: str, hint: str) -> ToolError:
    return ToolError(code="invalid_request", message=message, hint=hint, tool=_TOOL)
