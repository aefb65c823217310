"""`Tracing`: OpenTelemetry spans of searches, loads, tool calls and upstream calls.

A `ToolScout` whose settings say ``tracing = true`` creates one (this module, and OpenTelemetry,
are imported only then). Spans go to the global tracer provider, so whatever exporter the
application (or ``opentelemetry-instrument``) set up receives them; the gateway can set one up
from ``OTEL_TRACES_EXPORTER`` (`install_provider_from_environment`). Spans nest under the current
span: in the gateway, under the ``mcp`` SDK's span of the ``tools/call`` request, and the SDK's own
client span of an upstream request nests under ``toolscout.upstream`` and carries the trace context
to the upstream server in ``_meta``.

Attributes are names, counts and codes. Argument values (and search queries) are added only when
the activity log keeps argument values (`ActivityLog(log_arguments=True)`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from importlib.metadata import entry_points

from opentelemetry import trace
from opentelemetry.trace import Span, Status, StatusCode

from .._errors import ConfigError
from .._version import __version__
from ._activity import ActivityEvent

__all__ = ["Tracing", "install_provider_from_environment"]

SESSION = "toolscout.session.id"
KIND = "toolscout.kind"
OUTCOME = "toolscout.outcome"
TOOL = "gen_ai.tool.name"
UPSTREAM = "toolscout.upstream"
_EXPORTERS = "opentelemetry_traces_exporter"


class Tracing:
    """Starts and finishes toolscout's spans on the global tracer provider."""

    def __init__(self, *, arguments: bool = False) -> None:
        """Trace with toolscout's tracer; `arguments`: also record argument values and queries."""
        self.arguments = arguments
        self._tracer = trace.get_tracer("toolscout", __version__)

    @contextmanager
    def dispatch(self, session: str) -> Iterator[Span]:
        """The span of one dispatched call, current while it runs; name and attributes come with `finish`."""
        with self._tracer.start_as_current_span("toolscout.dispatch", attributes={SESSION: session}) as span:
            yield span

    def finish(self, span: Span, event: ActivityEvent) -> None:
        """Name `span` after what the call was (``toolscout.search``, ``.describe``, ``.call``, ``.refusal``)."""
        span.update_name(f"toolscout.{event.kind}")
        attributes: dict[str, str | int | bool] = {
            KIND: event.kind,
            TOOL: event.tool,
            OUTCOME: event.code or "ok",
            "toolscout.tools_revealed": len(event.revealed),
        }
        if event.label is not None:
            attributes["toolscout.label"] = event.label
        if event.kind in ("search", "describe"):
            attributes["toolscout.hits"] = len(event.hits)
        if event.mode is not None:
            attributes["toolscout.search.mode"] = event.mode
        if event.kind == "call":
            attributes["gen_ai.operation.name"] = "execute_tool"
            attributes["toolscout.result_bytes"] = event.bytes_out
            attributes["toolscout.offloaded"] = event.offloaded
        if event.upstream is not None:
            attributes[UPSTREAM] = event.upstream
        if event.arguments is not None:
            attributes["gen_ai.tool.call.arguments"] = _json(event.arguments)
            if event.query is not None:
                attributes["toolscout.search.query"] = event.query
        span.set_attributes(attributes)
        _set_outcome(span, event.code)

    @contextmanager
    def upstream(
        self, *, session: str, tool: str, server: str, upstream_tool: str, arguments: Mapping[str, object]
    ) -> Iterator[Span]:
        """The span of one call the gateway sends to an upstream server (`tool`: its name in the catalog)."""
        attributes: dict[str, str] = {
            SESSION: session,
            TOOL: tool,
            UPSTREAM: server,
            "toolscout.upstream.tool": upstream_tool,
        }
        if self.arguments:
            attributes["gen_ai.tool.call.arguments"] = _json(arguments)
        with self._tracer.start_as_current_span("toolscout.upstream", attributes=attributes) as span:
            yield span

    def upstream_result(self, span: Span, code: str | None) -> None:
        """Record an upstream call's outcome: None when it succeeded, else its error code."""
        span.set_attribute(OUTCOME, code or "ok")
        _set_outcome(span, code)


def install_provider_from_environment() -> Callable[[], None] | None:
    """Export spans to the exporters ``OTEL_TRACES_EXPORTER`` names, unless a tracer provider is set already.

    Each name is an installed exporter's entry point (``console``, ``otlp_proto_http``, ...); every
    exporter reads its own ``OTEL_EXPORTER_*`` variables, the resource ``OTEL_SERVICE_NAME`` and
    ``OTEL_RESOURCE_ATTRIBUTES`` (service name ``toolscout`` otherwise). Returns the function that
    flushes and stops the provider, or None when nothing was installed.

    Raises:
        ConfigError: The SDK is not installed, or a name is no installed exporter's.
    """
    names = [name.strip() for name in os.environ.get("OTEL_TRACES_EXPORTER", "").split(",") if name.strip()]
    if not names or names == ["none"] or not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        return None
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        raise ConfigError(
            "OTEL_TRACES_EXPORTER is set but the OpenTelemetry SDK is not installed: pip install 'toolscout[otel]'",
            key="tracing",
        ) from None
    installed = {point.name: point for point in entry_points(group=_EXPORTERS)}
    unknown = [name for name in names if name not in installed]
    if unknown:
        raise ConfigError(
            f"OTEL_TRACES_EXPORTER names {', '.join(unknown)}, which no installed package provides "
            f"(installed: {', '.join(sorted(installed)) or 'none'})",
            key="tracing",
        )
    resource = Resource.create()
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
        resource = resource.merge(Resource({"service.name": "toolscout"}))
    provider = TracerProvider(resource=resource)
    for name in names:
        provider.add_span_processor(BatchSpanProcessor(installed[name].load()()))
    trace.set_tracer_provider(provider)

    def stop() -> None:
        provider.shutdown()

    return stop


def _set_outcome(span: Span, code: str | None) -> None:
    if code is not None:
        span.set_attribute("error.type", code)
        span.set_status(Status(StatusCode.ERROR, code))


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)
