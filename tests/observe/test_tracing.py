"""OpenTelemetry spans of a library session, recorded by the real SDK's in-memory exporter."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator

import pytest

from tests.conftest import require
from toolscout import ScoutSettings, ToolScout
from toolscout.observe import ActivityLog
from toolscout.observe._tracing import install_provider_from_environment

require(
    importlib.util.find_spec("opentelemetry.sdk") is not None,
    "opentelemetry-sdk is not installed (pip install 'toolscout[otel]'; scripts/dev-setup.sh installs it)",
)

from opentelemetry import trace  # noqa: E402
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402
from opentelemetry.trace import StatusCode  # noqa: E402

CRM = [{"name": f"crm__op_{i}", "description": f"CRM operation {i}", "namespace": "crm"} for i in range(40)]


def send_email(to: str, body: str) -> str:
    """Send an email message to a recipient."""
    return f"sent to {to}"


@pytest.fixture(scope="module")
def provider() -> TracerProvider:
    """The process's global tracer provider (OpenTelemetry lets it be set once)."""
    current = trace.get_tracer_provider()
    if isinstance(current, TracerProvider):
        return current
    provider = TracerProvider()
    trace.set_tracer_provider(provider)
    return provider


@pytest.fixture
def spans(provider: TracerProvider) -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    processor = SimpleSpanProcessor(exporter)
    provider.add_span_processor(processor)
    yield exporter
    processor.shutdown()


def scout(*, tracing: bool = True, activity: ActivityLog | None = None) -> ToolScout:
    return ToolScout([send_email, *CRM], settings=ScoutSettings(mode="on", tracing=tracing), activity=activity)


def finished(exporter: InMemorySpanExporter) -> list[ReadableSpan]:
    return [span for span in exporter.get_finished_spans() if span.name.startswith("toolscout.")]


def test_search_describe_call_are_spans_with_their_attributes_under_the_callers_span(spans) -> None:
    log = ActivityLog()
    session = scout(activity=log).session("conv-1")
    with trace.get_tracer("the agent").start_as_current_span("agent turn") as turn:
        session.dispatch_sync("tool_search", {"query": "send an email"})
        session.dispatch_sync("tool_describe", {"names": ["send_email"]})
        session.dispatch_sync("tool_call", {"name": "send_email", "arguments": {"to": "a@b.c", "body": "secret"}})

    search, describe, call = finished(spans)
    assert [search.name, describe.name, call.name] == ["toolscout.search", "toolscout.describe", "toolscout.call"]
    for span in (search, describe, call):
        assert span.parent is not None and span.parent.span_id == turn.get_span_context().span_id
        assert span.context.trace_id == turn.get_span_context().trace_id
        assert span.attributes["toolscout.session.id"] == "conv-1"
        assert span.attributes["toolscout.outcome"] == "ok" and span.status.status_code != StatusCode.ERROR
    assert search.attributes["gen_ai.tool.name"] == "tool_search"
    assert search.attributes["toolscout.search.mode"] == "lexical"
    found, loaded, _ = log.recent()
    assert search.attributes["toolscout.hits"] == len(found.hits) >= 1 and found.hits[0] == "send_email"
    assert describe.attributes["toolscout.hits"] == len(loaded.hits) == 1
    assert call.attributes["gen_ai.tool.name"] == "send_email"
    assert call.attributes["gen_ai.operation.name"] == "execute_tool"
    assert call.attributes["toolscout.result_bytes"] == len("sent to a@b.c")
    every_value = json.dumps([dict(span.attributes or {}) for span in (search, describe, call)])
    assert "secret" not in every_value and "send an email" not in every_value


def test_a_refusal_is_an_error_span_with_its_code(spans) -> None:
    session = scout().session("conv-2")
    session.dispatch_sync("tool_call", {"name": "send_email", "arguments": {"to": 1}})
    session.dispatch_sync("tool_call", {"name": "no_such_tool"})

    invalid, unknown = finished(spans)
    assert invalid.name == unknown.name == "toolscout.refusal"
    assert invalid.attributes["error.type"] == invalid.attributes["toolscout.outcome"] == "invalid_arguments"
    assert unknown.attributes["error.type"] == "unknown_tool"
    assert invalid.status.status_code == StatusCode.ERROR


def test_spans_carry_argument_values_only_when_the_activity_log_keeps_them(spans) -> None:
    session = scout(activity=ActivityLog(log_arguments=True)).session("conv-3")
    session.dispatch_sync("tool_search", {"query": "send an email"})
    session.dispatch_sync("tool_call", {"name": "send_email", "arguments": {"to": "x", "body": "y"}})

    search, call = finished(spans)
    assert search.attributes["toolscout.search.query"] == "send an email"
    assert json.loads(str(call.attributes["gen_ai.tool.call.arguments"])) == {"to": "x", "body": "y"}


def test_a_tool_that_is_traced_itself_runs_inside_the_call_span(spans) -> None:
    tracer = trace.get_tracer("the tool")

    def lookup(key: str) -> str:
        """Look a key up."""
        with tracer.start_as_current_span("lookup work"):
            return key

    ToolScout([lookup], settings=ScoutSettings(tracing=True)).session("conv-4").dispatch_sync("lookup", {"key": "k"})

    work = next(span for span in spans.get_finished_spans() if span.name == "lookup work")
    (call,) = finished(spans)
    assert work.parent is not None and work.parent.span_id == call.context.span_id


def test_tracing_off_records_no_span(spans) -> None:
    scout(tracing=False).session("conv-5").dispatch_sync("tool_search", {"query": "email"})
    assert finished(spans) == []


def test_a_tracer_provider_set_by_the_application_is_kept(provider, monkeypatch) -> None:
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "console")
    assert install_provider_from_environment() is None
    assert trace.get_tracer_provider() is provider
