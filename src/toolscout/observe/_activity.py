"""`ActivityLog`: what the model searched, loaded and called, as structured events.

Give it to a `ToolScout` (``ToolScout(..., activity=log)``; the gateway does this): every
dispatched call becomes one `ActivityEvent`, kept in a bounded in-memory buffer (for the web page),
written as one JSON line to the ``toolscout.activity`` logger, and passed to every listener (the
metrics). Argument values are left out unless `log_arguments` is set: names are enough to audit,
values may be secrets.

Every string a client chose (query, tool name, argument names and values, session id) is clipped
before it enters an event (`MAX_EVENT_TEXT` characters, at most `MAX_EVENT_NAMES` names per list), and
the buffer is bounded by bytes as well as by count, so a client sending megabyte queries never pins
memory nor bloats the log, the page or the metrics.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import Literal, TypeAlias

import pydantic_core

from .._clipping import clip
from .._settings import BridgeNames
from ..dispatch import SearchAnswer, ToolOutcome
from ..offload._internal import OFFLOAD_NAMES

__all__ = ["ActivityEvent", "ActivityKind", "ActivityListener", "ActivityLog", "activity_event"]

logger = logging.getLogger("toolscout.activity")

ActivityKind: TypeAlias = Literal["search", "describe", "call", "refusal"]
"""``search``: a tool search; ``describe``: schemas loaded; ``call``: a tool ran (or failed running);
``refusal``: toolscout refused the call before any tool ran (scope, validation, unknown name)."""

# Codes of calls toolscout refused before any tool ran; every other failure is a failed call.
_REFUSALS = frozenset(
    {
        "invalid_request",
        "unknown_tool",
        "bridge_recursion",
        "call_directly",
        "invalid_arguments_json",
        "arguments_not_object",
        "invalid_arguments",
        "refused",
        "not_executable",
    }
)
_MAX_LABELS = 10_000
_DEFAULT_NAMES = BridgeNames()
MAX_EVENT_TEXT = 2_000
"""The longest client string an event keeps (a query, a tool name, an argument value), in characters."""
MAX_EVENT_NAMES = 50
"""The most names an event keeps per list (hits, argument names)."""
_NAME_CHARS = 300
_MIN_BYTES = 4_096
_SUMMARY_CHARS = 200


@dataclass(frozen=True, slots=True, kw_only=True)
class ActivityEvent:
    """One dispatched call, as the activity log records it."""

    kind: ActivityKind
    time: float
    """Seconds since the epoch when the call finished."""
    session: str
    """The toolscout session id."""
    label: str | None = None
    """Who called: the auth token's label in the gateway, else None."""
    tool: str
    """The real tool (the bridge unwrapped); for searches and describes, the bridge tool."""
    upstream: str | None = None
    """The tool's namespace (the upstream server in the gateway)."""
    ok: bool
    code: str | None = None
    """The error code when not ok."""
    latency_ms: float
    mode: str | None = None
    """Searches: the engine that answered (``lexical``, ``hybrid``, ``regex``), when known."""
    query: str | None = None
    hits: tuple[str, ...] = ()
    """Searches: the names found, best first; describes: the names loaded."""
    revealed: tuple[str, ...] = ()
    """Tools this call newly added to the session's discoveries."""
    learned: tuple[str, ...] = ()
    """Searches: the hits learning from use added, moved up or made more confident (a learned answer when any)."""
    bytes_in: int = 0
    """Size of the arguments as JSON."""
    bytes_out: int = 0
    """Size of the result as text."""
    offloaded: bool = False
    """The result was stored and replaced by a handle."""
    auto_pinned: bool = False
    """Calls: the tool was listed without a search because the session's learning scope keeps calling it
    (auto-pin), and was called directly."""
    argument_names: tuple[str, ...] = ()
    arguments: Mapping[str, object] | None = field(default=None)
    """Argument values, only when the log was told to keep them."""

    @property
    def zero_result(self) -> bool:
        """A search that found nothing."""
        return self.kind == "search" and self.ok and not self.hits

    def to_dict(self) -> dict[str, object]:
        """The event as plain JSON values (``arguments`` only when kept)."""
        data = asdict(self)
        data["zero_result"] = self.zero_result
        if data["arguments"] is None:
            del data["arguments"]
        return data

    def to_json(self) -> str:
        """One JSON line."""
        return json.dumps(self.to_dict(), ensure_ascii=False, default=str)

    def summary(self) -> str:
        """A short human line, the log message beside the structured fields."""
        if self.kind == "search":
            return f"search {clip(self.query or '', _SUMMARY_CHARS)!r}: {len(self.hits)} hits"
        outcome = "ok" if self.ok else self.code
        return f"{self.kind} {self.tool}: {outcome} in {self.latency_ms:.1f} ms"


ActivityListener: TypeAlias = Callable[[ActivityEvent], None]
"""Called with every event (the metrics, a live page); must be quick and must not raise."""


class ActivityLog:
    """Turns dispatched calls into `ActivityEvent`s; keeps the latest, logs and forwards each."""

    def __init__(
        self,
        *,
        capacity: int = 2_000,
        max_bytes: int = 8 << 20,
        log_arguments: bool = False,
        file: Path | None = None,
        file_bytes: int = 10 << 20,
        file_backups: int = 5,
    ) -> None:
        """Create an activity log.

        Args:
            capacity: How many of the latest events to keep in memory.
            max_bytes: The most bytes (as JSON) the kept events may take; the oldest go first.
            log_arguments: Also record argument values (off: argument names only).
            file: Also write every event as one JSON line to this file, rotated at `file_bytes`
                with `file_backups` old files kept.
            file_bytes: Size at which `file` is rotated.
            file_backups: Rotated files kept.
        """
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, got {capacity}")
        if max_bytes < _MIN_BYTES:
            raise ValueError(f"max_bytes must be >= {_MIN_BYTES}, got {max_bytes}")
        self._max_bytes = max_bytes
        self._bytes = 0
        self.log_arguments = log_arguments
        self._file: logging.Handler | None = None
        if file is not None:
            handler = RotatingFileHandler(file, maxBytes=file_bytes, backupCount=file_backups, encoding="utf-8")
            handler.setFormatter(logging.Formatter("%(message)s"))
            self._file = handler
        self._capacity = capacity
        self._events: deque[tuple[ActivityEvent, int]] = deque()
        self._listeners: list[ActivityListener] = []
        self._lock = threading.Lock()
        self._labels: OrderedDict[str, str] = OrderedDict()

    def close(self) -> None:
        """Close the log file, if any."""
        if self._file is not None:
            self._file.close()

    def add_listener(self, listener: ActivityListener) -> None:
        """Call `listener` with every future event."""
        self._listeners.append(listener)

    def label_session(self, session: str, label: str) -> None:
        """Record which auth token a session belongs to (the latest 10,000 sessions are remembered)."""
        with self._lock:
            self._labels[session] = label
            self._labels.move_to_end(session)
            while len(self._labels) > _MAX_LABELS:
                self._labels.popitem(last=False)

    def recent(self, limit: int | None = None, *, session: str | None = None) -> list[ActivityEvent]:
        """The latest events, newest last, optionally of one session."""
        with self._lock:
            events = [event for event, _ in self._events if session is None or event.session == session]
        return events if limit is None else events[-limit:]

    def observe(
        self,
        outcome: ToolOutcome,
        *,
        session: str,
        upstream: str | None = None,
        mode: str | None = None,
        bridge: BridgeNames = _DEFAULT_NAMES,
    ) -> None:
        """Record one dispatched call of `session`.

        `upstream` is the tool's namespace, `mode` the search engine, `bridge` the names of the bridge tools.
        """
        self.record(self.event_of(outcome, session=session, upstream=upstream, mode=mode, bridge=bridge))

    def record(self, event: ActivityEvent) -> None:
        """Keep, log and forward one event."""
        line = event.to_json()
        size = len(line.encode())
        with self._lock:
            self._events.append((event, size))
            self._bytes += size
            while len(self._events) > self._capacity or (self._bytes > self._max_bytes and len(self._events) > 1):
                self._bytes -= self._events.popleft()[1]
        logger.info(event.summary(), extra={"activity": event.to_dict()})
        if self._file is not None:
            self._file.handle(logging.makeLogRecord({"msg": line, "levelno": logging.INFO}))
        for listener in self._listeners:
            listener(event)

    def event_of(
        self,
        outcome: ToolOutcome,
        *,
        session: str,
        upstream: str | None = None,
        mode: str | None = None,
        bridge: BridgeNames = _DEFAULT_NAMES,
    ) -> ActivityEvent:
        """The event for one dispatched call, with the session's label and argument values if kept.

        `bridge` holds the names of the bridge tools.
        """
        return activity_event(
            outcome,
            session=session,
            upstream=upstream,
            mode=mode,
            label=self._labels.get(session),
            keep_arguments=self.log_arguments,
            bridge=bridge,
        )


def activity_event(
    outcome: ToolOutcome,
    *,
    session: str,
    upstream: str | None = None,
    mode: str | None = None,
    label: str | None = None,
    keep_arguments: bool = False,
    bridge: BridgeNames = _DEFAULT_NAMES,
) -> ActivityEvent:
    """The event for one dispatched call of `session` (argument values only with `keep_arguments`).

    `bridge` holds the names of the bridge tools.
    """
    content = outcome.content
    requested = outcome.requested
    kind = _kind(outcome, bridge)
    answer = outcome.answer if kind in ("search", "describe") else None
    hits = () if answer is None else tuple(_shown(name, _NAME_CHARS) for name in answer.names[:MAX_EVENT_NAMES])
    query = None
    if kind == "search":
        asked = answer.query if isinstance(answer, SearchAnswer) else outcome.arguments.get("query", "")
        query = _shown(str(asked), MAX_EVENT_TEXT)
    text = outcome.to_text()
    tool = _shown(outcome.name or requested, _NAME_CHARS)
    return ActivityEvent(
        kind=kind,
        time=time.time(),
        session=_shown(session, _NAME_CHARS),
        label=None if label is None else _shown(label, _NAME_CHARS),
        tool=tool,
        upstream=_shown(upstream, _NAME_CHARS) if upstream is not None and kind in ("call", "refusal") else None,
        ok=outcome.error is None and not outcome.tool_reported_error,
        code=_code(outcome),
        latency_ms=round(outcome.latency_s * 1000, 3),
        mode=mode if kind == "search" else None,
        query=query,
        hits=hits,
        revealed=outcome.revealed[:MAX_EVENT_NAMES],
        learned=_learned(answer),
        bytes_in=_json_size(outcome.arguments),
        bytes_out=len(text.encode()),
        offloaded=isinstance(content, Mapping) and "handle" in content and tool not in OFFLOAD_NAMES,
        argument_names=tuple(_shown(str(name), _NAME_CHARS) for name in list(outcome.arguments)[:MAX_EVENT_NAMES]),
        arguments=_clipped_values(outcome.arguments) if keep_arguments else None,
    )


def _learned(answer: object) -> tuple[str, ...]:
    """The hits of a search answer that learning from use changed (`FoundTool.learned`)."""
    if not isinstance(answer, SearchAnswer):
        return ()
    return tuple(clip(tool.name, _NAME_CHARS) for tool in answer.tools if tool.learned)[:MAX_EVENT_NAMES]


def _json_size(arguments: Mapping[str, object]) -> int:
    """The size of `arguments` as compact JSON."""
    return len(_json_bytes(arguments))


def _json(value: object) -> str:
    return _json_bytes(value).decode()


def _json_bytes(value: object) -> bytes:
    """`value` as compact JSON, by pydantic-core (on the event loop: 1 MB costs about 1 ms there, 25 ms with `json`).

    Text that UTF-8 cannot hold (a lone surrogate) is written as its JSON escape.
    """
    try:
        return pydantic_core.to_json(value, fallback=str, inf_nan_mode="constants")
    except pydantic_core.PydanticSerializationError:
        return json.dumps(value, default=str, separators=(",", ":")).encode()


def _shown(text: str, limit: int) -> str:
    """`text` clipped to `limit`, a lone surrogate in it (not valid Unicode: no file or page can hold it) escaped."""
    if not text.isascii():
        try:
            text.encode()
        except UnicodeEncodeError:
            text = text.encode(errors="backslashreplace").decode()
    return clip(text, limit)


def _code(outcome: ToolOutcome) -> str | None:
    """The error code of a failed call: toolscout's, or ``tool_reported_error`` for a tool's own failure."""
    if outcome.error is not None:
        return outcome.error.code
    return "tool_reported_error" if outcome.tool_reported_error else None


def _kind(outcome: ToolOutcome, bridge: BridgeNames) -> ActivityKind:
    if outcome.requested == bridge.search and outcome.name == bridge.search:
        return "describe" if outcome.arguments.get("names") not in (None, "", []) else "search"
    if outcome.requested == bridge.describe and outcome.name == bridge.describe:
        return "describe"
    if outcome.error is not None and outcome.error.code in _REFUSALS:
        return "refusal"
    return "call"


def _clipped_values(arguments: Mapping[str, object]) -> dict[str, object]:
    """Argument values as kept: short strings, numbers and booleans as they are, anything longer as clipped JSON."""
    kept: dict[str, object] = {}
    for name in list(arguments)[:MAX_EVENT_NAMES]:
        value = arguments[name]
        if not isinstance(value, str | int | float | bool) and value is not None:
            value = _json(value)
        kept[_shown(str(name), _NAME_CHARS)] = _shown(value, MAX_EVENT_TEXT) if isinstance(value, str) else value
    return kept
