"""Logging for `toolscout serve`: plain lines or one JSON object per line, always on stderr, credentials redacted.

What upstreams and clients send reaches log messages (tool names, errors); both formats clip a
message to `MAX_MESSAGE_CHARS`, and the text format escapes line breaks, terminal escapes and
invisible characters, so no one can forge a log line or hide text in one.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from typing import Literal

from ..._clipping import clip
from ..._redact import redact
from ...catalog._internal import INVISIBLE_CHARACTERS

__all__ = [
    "MAX_MESSAGE_CHARS",
    "JsonFormatter",
    "RedactingFormatter",
    "TextFormatter",
    "configure_logging",
    "escape_for_log",
]

MAX_MESSAGE_CHARS = 16_000
"""The longest log message written; a longer one is cut, marked with "…"."""
_UNSAFE = re.compile(f"[\\x00-\\x1f\\x7f-\\x9f{INVISIBLE_CHARACTERS}]")

# Attributes every LogRecord has; anything else was passed as `extra=` and is a structured field.
_STANDARD = frozenset(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message and every ``extra`` field."""

    def format(self, record: logging.LogRecord) -> str:
        """Render `record` as a JSON line."""
        entry: dict[str, object] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": clip(record.getMessage(), MAX_MESSAGE_CHARS),
        }
        entry.update({key: value for key, value in record.__dict__.items() if key not in _STANDARD})
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


class RedactingFormatter(logging.Formatter):
    """Another formatter's lines with every credential hidden (`toolscout._redact.redact`), whoever logged them."""

    def __init__(self, inner: logging.Formatter) -> None:
        """Redact what `inner` renders."""
        super().__init__()
        self._inner = inner

    def format(self, record: logging.LogRecord) -> str:
        """Render `record` with `inner`, then redact the line."""
        return redact(self._inner.format(record))


class TextFormatter(logging.Formatter):
    """Plain lines: ``time LEVEL logger: message``, the message clipped and its unsafe characters escaped."""

    def __init__(self) -> None:
        """Use toolscout's line layout."""
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s", "%H:%M:%S")

    def formatMessage(self, record: logging.LogRecord) -> str:
        """Render the line with the message made safe (line breaks and escapes written out as Python escapes)."""
        record.message = escape_for_log(clip(record.message, MAX_MESSAGE_CHARS))
        return super().formatMessage(record)


def escape_for_log(text: str) -> str:
    """`text` with control, bidi and zero-width characters written as Python escapes."""
    return _UNSAFE.sub(lambda match: match.group().encode("unicode_escape").decode("ascii"), text)


def configure_logging(*, verbose: bool, style: Literal["text", "json"]) -> None:
    """Send every log to stderr (stdout may be the MCP stream), redacted; toolscout's at INFO with `verbose`."""
    handler = logging.StreamHandler(sys.stderr)
    if style == "json":
        inner: logging.Formatter = JsonFormatter()
    else:
        inner = TextFormatter()
    handler.setFormatter(RedactingFormatter(inner))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    level = logging.INFO if verbose else logging.WARNING
    for name in ("toolscout", "toolscout.gateway", "toolscout.dispatch"):
        logging.getLogger(name).setLevel(level)
