"""`ActivityReport`: what a catalog's authors and a gateway's operators learn from an activity log.

Reads JSON lines: raw events (an `ActivityLog` file) or the gateway's JSON log lines, whose
``activity`` field holds the event; other lines are counted and skipped.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

__all__ = ["ActivityReport", "UpstreamErrors", "activity_events", "summarise"]


@dataclass(frozen=True, slots=True, kw_only=True)
class UpstreamErrors:
    """Calls to one upstream and how many failed."""

    upstream: str
    calls: int
    errors: int

    @property
    def error_rate(self) -> float:
        """Failed calls as a share of calls."""
        return self.errors / self.calls if self.calls else 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class ActivityReport:
    """A summary of an activity log."""

    events: int
    searches: int
    zero_result_queries: list[tuple[str, int]] = field(default_factory=list)
    """Queries that found nothing, most frequent first: what the catalog's authors should fix."""
    most_loaded: list[tuple[str, int]] = field(default_factory=list)
    """Tools most often loaded into sessions (revealed or described)."""
    most_called: list[tuple[str, int]] = field(default_factory=list)
    never_found: list[str] = field(default_factory=list)
    """Catalog tools no search returned (only when the catalog's names were given)."""
    upstreams: list[UpstreamErrors] = field(default_factory=list)
    refusals: list[tuple[str, int]] = field(default_factory=list)
    """Refused calls by error code."""
    skipped_lines: int = 0

    def to_text(self, *, top: int = 10) -> str:
        """The report as plain text."""
        empty = sum(count for _, count in self.zero_result_queries)
        rate = empty / self.searches if self.searches else 0.0
        lines = [f"{self.events} events, {self.searches} searches ({rate:.1%} found nothing)"]
        sections: list[tuple[str, list[str]]] = [
            ("Queries that found nothing", [f"{n:>5}  {q}" for q, n in self.zero_result_queries[:top]]),
            ("Most loaded tools", [f"{n:>5}  {t}" for t, n in self.most_loaded[:top]]),
            ("Most called tools", [f"{n:>5}  {t}" for t, n in self.most_called[:top]]),
            (
                "Errors per upstream",
                [f"{u.errors:>5} / {u.calls:<5} {u.error_rate:6.1%}  {u.upstream}" for u in self.upstreams],
            ),
            ("Refusals", [f"{n:>5}  {code}" for code, n in self.refusals]),
        ]
        if self.never_found:
            never = [f"       {tool}" for tool in self.never_found[:top]]
            sections.append((f"Tools never found ({len(self.never_found)})", never))
        for title, rows in sections:
            lines += ["", title, *(rows or ["    (none)"])]
        if self.skipped_lines:
            lines += ["", f"{self.skipped_lines} lines were not activity events and were skipped"]
        return "\n".join(lines)

    def to_json(self) -> dict[str, object]:
        """The report as JSON values."""
        return {
            "events": self.events,
            "searches": self.searches,
            "zero_result_queries": [{"query": q, "count": n} for q, n in self.zero_result_queries],
            "most_loaded": [{"tool": t, "count": n} for t, n in self.most_loaded],
            "most_called": [{"tool": t, "count": n} for t, n in self.most_called],
            "never_found": self.never_found,
            "upstreams": [
                {"upstream": u.upstream, "calls": u.calls, "errors": u.errors, "error_rate": round(u.error_rate, 4)}
                for u in self.upstreams
            ],
            "refusals": [{"code": c, "count": n} for c, n in self.refusals],
            "skipped_lines": self.skipped_lines,
        }


def summarise(lines: Iterable[str], *, catalog: Iterable[str] = ()) -> ActivityReport:
    """Summarise activity log `lines`; `catalog` names the tools that exist, for "never found"."""
    events = skipped = searches = 0
    zero: Counter[str] = Counter()
    loaded: Counter[str] = Counter()
    called: Counter[str] = Counter()
    found: set[str] = set()
    calls: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    refusals: Counter[str] = Counter()
    for line in lines:
        event = _event(line)
        if event is None:
            skipped += bool(line.strip())
            continue
        events += 1
        kind = event.get("kind")
        loaded.update(str(name) for name in _list(event.get("revealed")))
        if kind == "search":
            searches += 1
            hits = _list(event.get("hits"))
            found.update(str(name) for name in hits)
            if event.get("ok", True) and not hits:
                zero[str(event.get("query") or "")] += 1
        elif kind == "call":
            tool, upstream = str(event.get("tool")), str(event.get("upstream") or "local")
            called[tool] += 1
            calls[upstream] += 1
            errors[upstream] += not event.get("ok", True)
        elif kind == "refusal":
            refusals[str(event.get("code") or "unknown")] += 1
    return ActivityReport(
        events=events,
        searches=searches,
        zero_result_queries=zero.most_common(),
        most_loaded=loaded.most_common(),
        most_called=called.most_common(),
        never_found=sorted(set(catalog) - found),
        upstreams=sorted(
            (UpstreamErrors(upstream=u, calls=n, errors=errors[u]) for u, n in calls.items()),
            key=lambda u: (-u.error_rate, u.upstream),
        ),
        refusals=refusals.most_common(),
        skipped_lines=skipped,
    )


def activity_events(lines: Iterable[str]) -> Iterator[dict[str, object]]:
    """The activity events among `lines` (raw events or the gateway's JSON log lines), in order; others skipped."""
    for line in lines:
        event = _event(line)
        if event is not None:
            yield event


def _event(line: str) -> dict[str, object] | None:
    try:
        data = json.loads(line)
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict):
        return None
    nested = data.get("activity")
    if isinstance(nested, dict):
        return nested
    return data if "kind" in data and "tool" in data else None


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []
