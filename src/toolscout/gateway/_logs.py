"""Logging for `toolscout serve`: plain lines or one JSON object per line, always on stderr, credentials redacted."""

from __future__ import annotations

import json
import logging
import sys
from typing import Literal

from .._redact import redact

__all__ = ["JsonFormatter", "RedactingFormatter", "configure_logging"]

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
            "message": record.getMessage(),
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


def configure_logging(*, verbose: bool, style: Literal["text", "json"]) -> None:
    """Send every log to stderr (stdout may be the MCP stream), redacted; toolscout's at INFO with `verbose`."""
    handler = logging.StreamHandler(sys.stderr)
    if style == "json":
        inner: logging.Formatter = JsonFormatter()
    else:
        inner = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s", "%H:%M:%S")
    handler.setFormatter(RedactingFormatter(inner))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    level = logging.INFO if verbose else logging.WARNING
    for name in ("toolscout", "toolscout.gateway", "toolscout.dispatch"):
        logging.getLogger(name).setLevel(level)
