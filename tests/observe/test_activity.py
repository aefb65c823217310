"""The activity log records what the model searched, loaded and called, from real dispatches."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from mcp.types import CallToolResult, TextContent

from toolscout import BridgeNames, ScoutSettings, ToolScout
from toolscout.gateway._http._logs import JsonFormatter
from toolscout.observe import ActivityLog
from toolscout.observe._internal import Metrics, summarise

CRM = [{"name": f"crm__op_{i}", "description": f"CRM operation {i}", "namespace": "crm"} for i in range(40)]


def send_email(to: str, body: str) -> str:
    """Send an email message to a recipient."""
    return f"sent to {to}"


SEND = {"name": "send_email", "arguments": {"to": "a", "body": "b"}}


def scout() -> ToolScout:
    return ToolScout([send_email, *CRM], settings=ScoutSettings(mode="on"))


def test_a_search_records_query_hits_and_what_it_revealed() -> None:
    log = ActivityLog()
    session = scout().session("s1")
    log.observe(session.dispatch_sync("tool_search", {"query": "send an email"}), session="s1", mode="lexical")
    log.observe(session.dispatch_sync("tool_search", {"query": "zzqx flurble"}), session="s1", mode="lexical")

    found, empty = log.recent()
    assert found.kind == "search" and found.query == "send an email"
    assert found.hits[0] == "send_email" and not found.zero_result
    assert empty.zero_result and empty.hits == ()
    assert found.mode == "lexical"


def test_a_bridged_call_is_recorded_under_the_real_tool_without_argument_values() -> None:
    log = ActivityLog()
    session = scout().session("s2")
    outcome = session.dispatch_sync("tool_call", {"name": "send_email", "arguments": {"to": "a@b.c", "body": "secret"}})
    log.observe(outcome, session="s2")

    (event,) = log.recent()
    assert event.kind == "call" and event.ok and event.tool == "send_email"
    assert event.argument_names == ("to", "body")
    assert event.arguments is None and "secret" not in event.to_json()
    assert event.bytes_out == len("sent to a@b.c")


def test_argument_values_are_kept_only_when_asked() -> None:
    log = ActivityLog(log_arguments=True)
    session = scout().session("s3")
    log.observe(
        session.dispatch_sync("tool_call", {"name": "send_email", "arguments": {"to": "x", "body": "y"}}), session="s3"
    )
    assert log.recent()[0].arguments == {"to": "x", "body": "y"}


def test_refusals_carry_their_error_code_and_are_not_counted_as_calls() -> None:
    log = ActivityLog()
    session = scout().session("s4")
    log.observe(session.dispatch_sync("tool_call", {"name": "send_email", "arguments": {"to": 1}}), session="s4")
    log.observe(session.dispatch_sync("tool_call", {"name": "no_such_tool"}), session="s4")
    kinds = [(event.kind, event.code) for event in log.recent()]
    assert kinds == [("refusal", "invalid_arguments"), ("refusal", "unknown_tool")]


def test_the_buffer_keeps_only_the_latest_events_and_filters_by_session() -> None:
    log = ActivityLog(capacity=3)
    session_a, session_b = scout().session("a"), scout().session("b")
    for query in ("email", "crm", "operation", "send"):
        log.observe(session_a.dispatch_sync("tool_search", {"query": query}), session="a")
    log.observe(session_b.dispatch_sync("tool_search", {"query": "email"}), session="b")
    assert [event.query for event in log.recent()] == ["operation", "send", "email"]
    assert [event.session for event in log.recent(session="b")] == ["b"]


def test_the_file_gets_one_json_line_per_event_and_rotates(tmp_path: Path) -> None:
    file = tmp_path / "activity.jsonl"
    log = ActivityLog(file=file, file_bytes=2_000, file_backups=2)
    session = scout().session("f")
    for i in range(30):
        log.observe(session.dispatch_sync("tool_search", {"query": f"crm operation {i}"}), session="f")
    log.close()
    lines = file.read_text().splitlines()
    assert all(json.loads(line)["kind"] == "search" for line in lines)
    assert (tmp_path / "activity.jsonl.1").exists()
    assert not (tmp_path / "activity.jsonl.3").exists()


def test_the_gateway_json_log_carries_the_event_and_the_report_reads_it(tmp_path: Path) -> None:
    file = tmp_path / "gateway.log"
    handler = logging.FileHandler(file)
    handler.setFormatter(JsonFormatter())
    activity_logger = logging.getLogger("toolscout.activity")
    activity_logger.addHandler(handler)
    activity_logger.setLevel(logging.INFO)
    try:
        log = ActivityLog()
        session = scout().session("g")
        log.observe(session.dispatch_sync("tool_search", {"query": "zzqx"}), session="g")
        log.observe(session.dispatch_sync("tool_search", {"query": "send an email"}), session="g")
        log.observe(
            session.dispatch_sync("tool_call", {"name": "send_email", "arguments": {"to": "a", "body": "b"}}),
            session="g",
        )
    finally:
        activity_logger.removeHandler(handler)
        handler.close()
    with file.open() as lines:
        report = summarise(lines, catalog=["send_email", "crm__op_1"])
    assert report.searches == 2 and report.events == 3
    assert report.zero_result_queries == [("zzqx", 1)]
    assert report.most_called == [("send_email", 1)]
    assert report.never_found == ["crm__op_1"]


def test_metrics_count_searches_calls_and_refusals() -> None:
    log, metrics = ActivityLog(), Metrics()
    log.add_listener(metrics.observe)
    metrics.track_upstreams(lambda: [("crm", "connected"), ("slow", "starting")])
    metrics.track_sessions(lambda: 2)
    session = scout().session("m")
    log.observe(session.dispatch_sync("tool_search", {"query": "zzqx"}), session="m", mode="hybrid")
    log.observe(
        session.dispatch_sync("tool_call", {"name": "send_email", "arguments": {"to": "a", "body": "b"}}), session="m"
    )
    log.observe(session.dispatch_sync("tool_call", {"name": "nope"}), session="m")

    text = metrics.render().decode()
    assert 'toolscout_searches_total{mode="hybrid"} 1.0' in text
    assert "toolscout_zero_result_searches_total 1.0" in text
    assert 'toolscout_calls_total{outcome="ok",upstream="local"} 1.0' in text
    assert 'toolscout_refusals_total{code="unknown_tool"} 1.0' in text
    assert 'toolscout_upstream_up{state="connected",upstream="crm"} 1.0' in text
    assert 'toolscout_upstream_up{state="starting",upstream="slow"} 0.0' in text
    assert "toolscout_sessions 2.0" in text


def test_a_capacity_below_one_is_refused_with_the_limit() -> None:
    with pytest.raises(ValueError, match="capacity must be >= 1"):
        ActivityLog(capacity=0)


def test_a_scout_with_an_activity_log_records_every_dispatch_with_its_discoveries() -> None:
    log = ActivityLog()
    scout = ToolScout([send_email, *CRM], settings=ScoutSettings(mode="on", style="reveal"), activity=log)
    session = scout.session("hooked")
    session.dispatch_sync("tool_search", {"query": "send an email"})
    session.dispatch_sync("send_email", {"to": "a", "body": "b"})
    search, call = log.recent()
    assert search.kind == "search" and search.revealed == ("send_email",) and search.mode == "lexical"
    assert call.kind == "call" and call.ok and call.session == "hooked"


def test_a_tool_that_reports_its_own_failure_counts_as_a_failed_call() -> None:
    def lookup_timezone(zone: str) -> CallToolResult:
        """Look up a timezone; an unknown one is reported the MCP way, as a result flagged isError."""
        return CallToolResult(content=[TextContent(type="text", text=f"Invalid timezone: {zone}")], is_error=True)

    def lookup_city(city: str) -> dict[str, object]:
        """Look up a city; an unknown one comes back as a plain MCP result dict flagged isError."""
        return {"content": [{"type": "text", "text": f"no city {city}"}], "isError": True}

    log, metrics = ActivityLog(), Metrics()
    log.add_listener(metrics.observe)
    session = ToolScout([lookup_timezone, lookup_city], settings=ScoutSettings(mode="off")).session("e")
    for name, arguments in (("lookup_timezone", {"zone": "Mars/Olympus"}), ("lookup_city", {"city": "Atlantis"})):
        outcome = session.dispatch_sync(name, arguments)
        assert outcome.tool_reported_error and outcome.error is None
        log.observe(outcome, session="e", upstream="geo")

    assert [(event.ok, event.code) for event in log.recent()] == [(False, "tool_reported_error")] * 2
    assert 'toolscout_calls_total{outcome="tool_reported_error",upstream="geo"} 2.0' in metrics.render().decode()
    assert summarise([event.to_json() for event in log.recent()]).upstreams[0].errors == 2


def test_searches_and_loads_under_configured_bridge_names_are_recorded_as_such() -> None:
    log = ActivityLog()
    names = BridgeNames(search="search_tools", describe="add_tool", call="run_tool")
    scout = ToolScout([send_email, *CRM], settings=ScoutSettings(mode="on", bridge_names=names), activity=log)
    session = scout.session("named")
    session.dispatch_sync("search_tools", {"query": "send an email"})
    session.dispatch_sync("add_tool", {"names": ["send_email"]})
    session.dispatch_sync("search_tools", {"names": ["crm__op_1"]})
    session.dispatch_sync("run_tool", SEND)
    assert [(event.kind, event.tool) for event in log.recent()] == [
        ("search", "search_tools"),
        ("describe", "add_tool"),
        ("describe", "search_tools"),
        ("call", "send_email"),
    ]


MB = 1 << 20


def test_client_strings_entering_an_event_are_clipped() -> None:
    log = ActivityLog(log_arguments=True)
    session = scout().session("huge")
    huge = "find " * (MB // 5)
    log.observe(session.dispatch_sync("tool_search", {"query": huge}), session="huge")
    log.observe(session.dispatch_sync("tool_call", {"name": "x" * MB, "arguments": {}}), session="huge")
    log.observe(session.dispatch_sync("send_email", {"to": "a" * MB, "body": "b", "k" * MB: 1}), session="huge")

    search, call, keyed = log.recent()
    assert search.kind == "search" and search.query is not None and search.query.startswith("find find")
    assert call.kind == "refusal" and call.arguments is not None and str(call.arguments["name"]).startswith("xxx")
    for event in (search, call, keyed):
        assert len(event.to_json()) < 20_000, event.kind
        assert len(event.summary()) < 1_000
    assert keyed.arguments is not None and str(keyed.arguments["to"]).startswith("aaa")


def test_the_buffer_is_bounded_by_bytes_and_keeps_the_newest_events() -> None:
    log = ActivityLog(capacity=2_000, max_bytes=50_000)
    session = scout().session("flood")
    for n in range(300):
        log.observe(session.dispatch_sync("tool_search", {"query": f"{n} " + "find " * (MB // 5)}), session="flood")
    events = log.recent()
    assert sum(len(event.to_json()) for event in events) <= 50_000
    assert events and events[-1].query is not None and events[-1].query.startswith("299 ")
    assert len(events) < 300


def test_a_byte_bound_below_one_event_is_refused_with_the_limit() -> None:
    with pytest.raises(ValueError, match="max_bytes must be >= 4096"):
        ActivityLog(max_bytes=100)


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("tool_search", {"query": "\ud800 send email"}),
        ("tool_call", {"name": "send_email", "arguments": {"to": "\udc80", "body": ["\ud83d"]}}),
        ("tool_\ud800", {"\udfff": 1}),
    ],
)
def test_a_refused_call_with_a_lone_surrogate_is_recorded_escaped_and_the_log_file_stays_utf8(
    tmp_path: Path, name: str, arguments: dict[str, object]
) -> None:
    # the model's text cannot be written as UTF-8; the call is refused, and the log must keep the event, not raise
    file = tmp_path / "activity.jsonl"
    log = ActivityLog(log_arguments=True, file=file)
    seen: list[str] = []
    log.add_listener(lambda event: seen.append(event.to_json()))
    session = ToolScout([send_email, *CRM], settings=ScoutSettings(mode="on"), activity=log).session("s9")
    outcome = session.dispatch_sync(name, arguments)

    assert outcome.error is not None and outcome.error.code == "invalid_request"
    (event,) = log.recent()
    assert event.code == "invalid_request" and not event.ok
    line = event.to_json()
    line.encode()  # valid UTF-8 now
    assert "\\ud800" in line or "\\udc80" in line or "\\udfff" in line  # what came in, shown as its escape
    assert seen == [line]
    assert json.loads(file.read_text(encoding="utf-8").splitlines()[-1])["code"] == "invalid_request"
