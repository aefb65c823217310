"""Find lines in a stored text output: literal or RE2 regex, line numbers, context, bounded pages.

Matching runs on RE2 over the UTF-8 bytes, in linear time whatever the pattern, and never
across a line end. A line longer than `LONG_LINE` bytes (minified JSON, a single enormous
line) is reported per occurrence, as a window around it with its character offset.
"""

from __future__ import annotations

import json
from typing import Protocol

import re2

from .._clipping import clip
from .._texts import Offload
from .._tokens import TokenCounter
from .._types import JsonObject
from ..dispatch import ToolError
from ._document import Document

__all__ = ["LONG_LINE", "MAX_CONTEXT", "MAX_PATTERN_LENGTH", "search_document"]

MAX_PATTERN_LENGTH = 1_000
"""Longest accepted pattern, in characters."""
MAX_CONTEXT = 10
"""The most context lines shown before and after a match."""
LONG_LINE = 1_000
"""Lines longer than this many bytes are reported per occurrence, as a window."""

_WINDOW = 150
_CONTEXT_CHARS = 300
_COUNT_AHEAD = 1_000
_MAX_MEMORY = 64 << 20
_TOOL = "output_search"


class _Match(Protocol):
    def start(self) -> int: ...
    def end(self) -> int: ...


class _Pattern(Protocol):
    def search(self, text: bytes, pos: int) -> _Match | None: ...


def search_document(
    document: Document,
    pattern: str,
    *,
    regex: bool = False,
    case_sensitive: bool = False,
    context: int = 2,
    start_line: int = 1,
    offset: int | None = None,
    max_matches: int,
    max_tokens: int,
    counter: TokenCounter,
) -> JsonObject | ToolError:
    """Matching lines from `start_line` (or character `offset`) on, at most `max_matches` and `max_tokens`."""
    compiled = _compile(pattern, regex=regex, case_sensitive=case_sensitive)
    if isinstance(compiled, ToolError):
        return compiled
    if offset is not None:
        if offset > document.text_chars:
            return _error(Offload.offset_past_end(offset, document.text_chars), Offload.SMALLER_OFFSET)
        position = document.byte_of(offset)
    elif start_line > document.lines:
        return _error(Offload.line_past_end(start_line, document.lines), Offload.SMALLER_LINE)
    else:
        position = document.line_start(start_line)
    context = max(0, min(context, MAX_CONTEXT))
    data = document.data
    matches: list[JsonObject] = []
    used = 0
    resume: JsonObject | None = None
    while (found := _next(compiled, data, position)) is not None:
        entry, after, resume_here = _entry(document, found, context)
        cost = counter.count(json.dumps(entry, ensure_ascii=False))
        if len(matches) >= max_matches or (matches and used + cost > max_tokens):
            resume = resume_here
            break
        matches.append(entry)
        used += cost
        if after <= position:  # an empty match in an empty text
            break
        position = after
    answer: JsonObject = {"matches": matches, "total_lines": document.lines}
    if resume is None:
        answer["next"] = None
        return answer
    remaining = _count(compiled, document, position)
    answer["next"] = resume
    answer["remaining_matches"] = f"{_COUNT_AHEAD}+" if remaining >= _COUNT_AHEAD else remaining
    return answer


def _compile(pattern: str, *, regex: bool, case_sensitive: bool) -> _Pattern | ToolError:
    if not pattern:
        return _error(Offload.EMPTY_PATTERN, Offload.GIVE_PATTERN)
    if len(pattern) > MAX_PATTERN_LENGTH:
        return _error(Offload.pattern_too_long(len(pattern), MAX_PATTERN_LENGTH), Offload.SHORTEN)
    options = re2.Options()
    options.literal = not regex
    options.case_sensitive = case_sensitive
    options.never_nl = True
    options.log_errors = False
    options.max_mem = _MAX_MEMORY
    source = ("(?m)" + pattern) if regex else pattern
    try:
        return re2.compile(source.encode("utf-8", "surrogatepass"), options)  # type: ignore[no-any-return]
    except re2.error as exc:
        raw = exc.args[0] if exc.args else b""
        detail = (raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)) or "invalid pattern"
        return _error(Offload.invalid_regex(clip(pattern, 100), detail), Offload.RE2_HINT)


def _entry(document: Document, found: _Match, context: int) -> tuple[JsonObject, int, JsonObject]:
    """The match entry, the byte position to search on from, and the arguments that resume at this match."""
    start = found.start()
    line = document.line_of(start)
    line_start, line_end = document.line_start(line), document.line_start(line + 1)
    if line_end - line_start <= LONG_LINE:
        entry: JsonObject = {"line": line, "text": _line_text(document, line)}
        if context:
            entry["before"] = [_line_text(document, n, clipped=True) for n in range(max(1, line - context), line)]
            entry["after"] = [
                _line_text(document, n, clipped=True) for n in range(line + 1, min(document.lines, line + context) + 1)
            ]
        return entry, line_end, {"start_line": line}
    window_start = _char_start(document, max(line_start, start - _WINDOW))
    window_end = _char_start(document, min(line_end, max(found.end(), start + 1) + _WINDOW))
    text = document.text(window_start, window_end).rstrip("\r\n")
    marked = ("…" if window_start > line_start else "") + text + ("…" if window_end < line_end else "")
    offset = document.char_of(start)
    after = _char_start(document, max(found.end(), start + 1), forward=True)
    return {"line": line, "offset": offset, "text": marked}, after, {"offset": offset}


def _line_text(document: Document, line: int, *, clipped: bool = False) -> str:
    start, end = document.line_start(line), document.line_start(line + 1)
    if clipped and end - start > _CONTEXT_CHARS * 4:
        end = _char_start(document, start + _CONTEXT_CHARS * 4)
    text = document.text(start, end).rstrip("\n").removesuffix("\r")
    return clip(text, _CONTEXT_CHARS) if clipped else text


def _char_start(document: Document, byte: int, *, forward: bool = False) -> int:
    """`byte` moved to the start of the character it falls in (or the next one, going `forward`)."""
    data = document.data
    while 0 < byte < len(data) and data[byte] & 0xC0 == 0x80:
        byte += 1 if forward else -1
    return byte


def _count(compiled: _Pattern, document: Document, position: int) -> int:
    """Matches from `position` on, counted as the pages report them, up to `_COUNT_AHEAD`."""
    count = 0
    previous = -1
    while count < _COUNT_AHEAD and (found := _next(compiled, document.data, position)) is not None:
        if position <= previous:
            break
        previous = position
        count += 1
        start = found.start()
        line = document.line_of(start)
        line_end = document.line_start(line + 1)
        if line_end - document.line_start(line) <= LONG_LINE:
            position = line_end
        else:
            position = _char_start(document, max(found.end(), start + 1), forward=True)
    return count


def _next(compiled: _Pattern, data: bytes, position: int) -> _Match | None:
    """The next match at or after `position`; none past the last line end (which starts no line)."""
    found = compiled.search(data, position)
    if found is None or (found.start() == len(data) and data.endswith(b"\n")):
        return None
    return found


def _error(message: str, hint: str) -> ToolError:
    return ToolError(code="query_failed", message=message, hint=hint, tool=_TOOL)
