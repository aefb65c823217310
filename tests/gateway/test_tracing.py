"""A real `toolscout serve` with ``tracing`` on exports its spans over OTLP/HTTP to a collector run here.

The gateway sets up the SDK from ``OTEL_TRACES_EXPORTER``; the upstream is a real MCP server
(servers/traced.py) that answers the trace context its call arrived with.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require
from tests.gateway.conftest import (
    LIMIT_S,
    SERVERS,
    TOOLSCOUT,
    http_client,
    http_gateway,
    stdio_gateway,
    text,
    write_config,
)


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


require(
    _installed("opentelemetry.exporter.otlp.proto.http"),
    "opentelemetry-exporter-otlp-proto-http is not installed (the dev extra has it)",
)

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (  # noqa: E402
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import KeyValue  # noqa: E402

pytestmark = pytest.mark.anyio
_ERROR = 2  # opentelemetry.proto.trace.v1.Status.STATUS_CODE_ERROR


@dataclass(frozen=True)
class Span:
    name: str
    trace_id: str
    span_id: str
    parent_id: str
    attributes: dict[str, Any]
    error: bool
    service: str


def _values(pairs: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for pair in pairs:
        assert isinstance(pair, KeyValue)
        kind = pair.value.WhichOneof("value")
        found[pair.key] = getattr(pair.value, kind) if kind else None
    return found


class Collector(ThreadingHTTPServer):
    """An OTLP/HTTP trace receiver: keeps every span posted to /v1/traces."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Receive)
        self.spans: list[Span] = []

    def keep(self, body: bytes) -> None:
        request = ExportTraceServiceRequest.FromString(body)
        for resource_spans in request.resource_spans:
            service = str(_values(resource_spans.resource.attributes).get("service.name"))
            for scope_spans in resource_spans.scope_spans:
                self.spans.extend(
                    Span(
                        name=span.name,
                        trace_id=span.trace_id.hex(),
                        span_id=span.span_id.hex(),
                        parent_id=span.parent_span_id.hex(),
                        attributes=_values(span.attributes),
                        error=span.status.code == _ERROR,
                        service=service,
                    )
                    for span in scope_spans.spans
                )

    def named(self, name: str) -> list[Span]:
        return [span for span in self.spans if span.name == name]


class _Receive(BaseHTTPRequestHandler):
    server: Collector

    def do_POST(self) -> None:
        assert self.path == "/v1/traces"
        self.server.keep(self.rfile.read(int(self.headers["Content-Length"])))
        answer = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def collector(monkeypatch: pytest.MonkeyPatch) -> Iterator[Collector]:
    """A collector the gateways started by this test export to (flushing every 50 ms)."""
    server = Collector()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "otlp_proto_http")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", f"http://127.0.0.1:{server.server_port}/v1/traces")
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
    monkeypatch.delenv("OTEL_SERVICE_NAME", raising=False)
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def config(tmp_path: Path, **settings: Any) -> Path:
    traced = {"command": sys.executable, "args": [str(SERVERS / "traced.py")]}
    return write_config(tmp_path / "mcp.json", {"traced": traced}, mode="on", **settings)


async def test_search_call_and_upstream_spans_nest_and_carry_the_trace_to_the_upstream(tmp_path, collector) -> None:
    async with http_gateway(config(tmp_path, tracing=True)) as url, http_client(url, session="conv-7") as client:
        await client.call_tool("tool_search", {"query": "trace context traceparent"})
        answer = await client.call_tool("tool_call", {"name": "traced__trace_context", "arguments": {}})
        failed = await client.call_tool("tool_call", {"name": "traced__broken_tool", "arguments": {}})
    # The gateway flushed its spans when it stopped, at the end of the block above.
    assert failed.is_error

    (search,) = collector.named("toolscout.search")
    assert search.attributes["toolscout.session.id"] == "http:local:s:conv-7"
    assert search.attributes["gen_ai.tool.name"] == "tool_search"
    assert search.attributes["toolscout.search.mode"] == "lexical"
    assert search.attributes["toolscout.hits"] >= 1 and search.attributes["toolscout.outcome"] == "ok"
    assert search.service == "toolscout"
    assert "trace context" not in str(search.attributes)  # no query without argument logging

    ok_call, failed_call = collector.named("toolscout.call")
    ok_upstream, failed_upstream = collector.named("toolscout.upstream")
    assert ok_call.attributes["gen_ai.tool.name"] == "traced__trace_context"
    assert ok_call.attributes["toolscout.upstream"] == "traced" and ok_call.attributes["toolscout.outcome"] == "ok"
    assert ok_upstream.parent_id == ok_call.span_id and ok_upstream.trace_id == ok_call.trace_id
    assert ok_upstream.attributes["toolscout.upstream.tool"] == "trace_context"
    assert ok_upstream.attributes["toolscout.session.id"] == "http:local:s:conv-7"
    assert ok_upstream.attributes["toolscout.outcome"] == "ok" and not ok_upstream.error

    # The mcp SDK's spans around ours: its server span of the client's request is the call's parent,
    # its client span of the upstream request is the upstream span's child, and its traceparent is
    # what the upstream server received.
    (server_span,) = [span for span in collector.named("tools/call tool_call") if span.span_id == ok_call.parent_id]
    (send,) = collector.named("MCP send tools/call trace_context")
    assert send.parent_id == ok_upstream.span_id
    assert text(answer).startswith(f"00-{send.trace_id}-{send.span_id}-")
    assert server_span.trace_id == send.trace_id

    assert failed_upstream.parent_id == failed_call.span_id
    assert failed_call.attributes["toolscout.outcome"] == "tool_reported_error" and failed_call.error
    assert failed_upstream.attributes["toolscout.outcome"] == "tool_reported_error" and failed_upstream.error
    assert failed_upstream.attributes["error.type"] == "tool_reported_error"


async def test_tracing_off_exports_no_toolscout_span(tmp_path, collector) -> None:
    async with http_gateway(config(tmp_path)) as url, http_client(url, session="conv-8") as client:
        await client.call_tool("tool_search", {"query": "trace context"})
    assert [span for span in collector.spans if span.name.startswith("toolscout.")] == []


def test_an_exporter_that_is_not_installed_is_named_in_the_error(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "otlp_proto_http,nonesuch")
    done = subprocess.run(
        [TOOLSCOUT, "serve", str(config(tmp_path, tracing=True))],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=LIMIT_S,
    )
    assert done.returncode != 0
    assert "tracing: OTEL_TRACES_EXPORTER names nonesuch, which no installed package provides" in done.stderr
    assert "otlp_proto_http" in done.stderr.split("installed:")[1]


async def test_over_stdio_the_spans_leave_the_protocol_stream_alone(tmp_path, collector) -> None:
    async with stdio_gateway(config(tmp_path, tracing=True)) as client:
        await client.call_tool("tool_search", {"query": "trace context"})
        answer = await client.call_tool("tool_call", {"name": "traced__trace_context", "arguments": {}})

    (upstream,) = collector.named("toolscout.upstream")
    (call,) = collector.named("toolscout.call")
    assert upstream.parent_id == call.span_id
    session = str(upstream.attributes["toolscout.session.id"])
    assert session.startswith("stdio:") and ":client:" in session
    assert text(answer).startswith(f"00-{upstream.trace_id}-")
