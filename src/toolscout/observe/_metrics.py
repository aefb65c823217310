"""`Metrics`: Prometheus metrics of searches, calls, upstreams, sessions and offloading.

Each `Metrics` owns its own `CollectorRegistry`, so two gateways in one process (or tests) never
share counters. Feed it events with ``activity.add_listener(metrics.observe)``; gauges that are
states rather than events (upstream health, sessions) are read when scraped, from the callables
given to `track_upstreams` and `track_sessions`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from ._activity import ActivityEvent

__all__ = ["CONTENT_TYPE", "Metrics"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
"""The content type of `Metrics.render`'s output."""

_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)

UpstreamStates = Callable[[], Iterable[tuple[str, str]]]
"""Returns ``(upstream name, state)`` pairs, e.g. ``("github", "connected")``."""


class Metrics:
    """The gateway's metrics, in Prometheus's text format."""

    def __init__(self) -> None:
        """Create the metrics in a registry of their own."""
        self.registry = CollectorRegistry()
        self.searches = Counter("toolscout_searches", "Tool searches by engine mode.", ["mode"], registry=self.registry)
        self.zero_result_searches = Counter(
            "toolscout_zero_result_searches", "Tool searches that found nothing.", registry=self.registry
        )
        self.learned_answers = Counter(
            "toolscout_learned_answers",
            "Tool searches whose answer learning from use changed (a learned tool added, moved up or more confident).",
            registry=self.registry,
        )
        self.search_latency = Histogram(
            "toolscout_search_latency_seconds",
            "Time to answer a tool search.",
            buckets=_LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.calls = Counter(
            "toolscout_calls", "Tool calls by upstream and outcome.", ["upstream", "outcome"], registry=self.registry
        )
        self.call_latency = Histogram(
            "toolscout_call_latency_seconds",
            "Time to answer a tool call, upstream included.",
            ["upstream"],
            buckets=_LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.refusals = Counter(
            "toolscout_refusals", "Calls refused before any tool ran, by error code.", ["code"], registry=self.registry
        )
        self.loads = Counter(
            "toolscout_tools_loaded",
            "Tools added to sessions' discoveries (revealed or described).",
            registry=self.registry,
        )
        self.offloaded = Counter(
            "toolscout_offloaded_results", "Results stored and replaced by a handle.", registry=self.registry
        )
        self.result_bytes = Counter(
            "toolscout_result_bytes", "Bytes of tool results sent to the model.", registry=self.registry
        )
        self.auto_pinned_calls = Counter(
            "toolscout_auto_pinned_calls",
            "Direct calls of tools listed without a search by auto-pin (learning).",
            registry=self.registry,
        )

    def observe(self, event: ActivityEvent) -> None:
        """Count one activity event (an `ActivityLog` listener)."""
        self.loads.inc(len(event.revealed))
        if event.kind == "search":
            self.searches.labels(mode=event.mode or "unknown").inc()
            self.search_latency.observe(event.latency_ms / 1000)
            if event.zero_result:
                self.zero_result_searches.inc()
            if event.learned:
                self.learned_answers.inc()
            return
        if event.kind == "refusal":
            self.refusals.labels(code=event.code or "unknown").inc()
            return
        if event.kind == "call":
            upstream = event.upstream or "local"
            self.calls.labels(upstream=upstream, outcome="ok" if event.ok else (event.code or "error")).inc()
            self.call_latency.labels(upstream=upstream).observe(event.latency_ms / 1000)
            self.result_bytes.inc(event.bytes_out)
            if event.offloaded:
                self.offloaded.inc()
            if event.auto_pinned:
                self.auto_pinned_calls.inc()

    def track_upstreams(self, states: UpstreamStates) -> None:
        """Report ``toolscout_upstream_up{upstream, state}`` from `states` at every scrape."""
        self.registry.register(_Gauge("toolscout_upstream_up", "1 when the upstream is connected.", states))

    def track_sessions(self, count: Callable[[], int]) -> None:
        """Report ``toolscout_sessions`` (sessions with discoveries) from `count` at every scrape."""
        self.registry.register(_Count("toolscout_sessions", "Sessions the gateway knows.", count))

    def track_auto_pins(self, count: Callable[[], int]) -> None:
        """Report ``toolscout_auto_pinned_tools`` from `count` at every scrape.

        The tools listed without a search by auto-pin, over every learning scope, as each scope's latest listing
        chose them.
        """
        self.registry.register(
            _Count("toolscout_auto_pinned_tools", "Tools auto-pinned now, over every learning scope.", count)
        )

    def render(self) -> bytes:
        """Every metric in Prometheus's text exposition format."""
        return generate_latest(self.registry)


class _Gauge(Collector):
    def __init__(self, name: str, documentation: str, states: UpstreamStates) -> None:
        self._name, self._doc, self._states = name, documentation, states

    def collect(self) -> Iterator[Metric]:
        family = GaugeMetricFamily(self._name, self._doc, labels=["upstream", "state"])
        for upstream, state in self._states():
            family.add_metric([upstream, state], 1.0 if state == "connected" else 0.0)
        yield family


class _Count(Collector):
    def __init__(self, name: str, documentation: str, count: Callable[[], int]) -> None:
        self._name, self._doc, self._count = name, documentation, count

    def collect(self) -> Iterator[Metric]:
        yield GaugeMetricFamily(self._name, self._doc, value=float(self._count()))
