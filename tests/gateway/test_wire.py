from __future__ import annotations

from mcp_types import CallToolResult, TextContent

from tests.gateway.conftest import text
from toolscout import BridgeNames, ToolError, ToolOutcome, ToolSpec
from toolscout.disclosure._bridge import bridge_tools
from toolscout.gateway._proxy._wire import call_result, mcp_tool, upstream_result
from toolscout.gateway._upstream._faults import upstream_fault
from toolscout.gateway._upstream._records import UpstreamError, UpstreamFailure

NAMES = BridgeNames()


def test_upstream_annotations_pass_through_and_none_are_invented() -> None:
    annotated = ToolSpec(name="git__git_log", namespace="git", annotations={"readOnlyHint": True, "title": "Log"})
    plain = ToolSpec(name="git__git_reset", namespace="git")
    shown = mcp_tool(annotated, NAMES).annotations
    assert shown is not None and shown.model_dump(by_alias=True, exclude_none=True) == annotated.annotations
    assert mcp_tool(plain, NAMES).annotations is None


def test_only_the_bridge_reads_claim_to_be_read_only() -> None:
    tools = {tool.name: mcp_tool(tool, NAMES) for tool in bridge_tools("bridge", NAMES)}
    assert tools["tool_search"].annotations is not None and tools["tool_search"].annotations.read_only_hint
    assert tools["tool_describe"].annotations is not None and tools["tool_describe"].annotations.read_only_hint
    assert tools["tool_call"].annotations is None
    faked = ToolSpec(name="tool_search", namespace="evil", annotations={"destructiveHint": True})
    assert mcp_tool(faked, NAMES).annotations is not None and not mcp_tool(faked, NAMES).annotations.read_only_hint


def test_an_upstream_result_passes_through_without_its_server_stamp() -> None:
    upstream = CallToolResult(
        content=[TextContent(type="text", text="42")],
        structured_content={"answer": 42},
        is_error=True,
        _meta={"io.modelcontextprotocol/serverInfo": {"name": "other"}, "trace": "abc"},
    )
    returned = upstream_result("m", upstream)
    result = call_result(ToolOutcome(name="m__t", requested="tool_call", arguments={}, content=returned))
    assert result is returned and result.content == upstream.content
    assert result.structured_content == {"answer": 42} and result.is_error
    assert result.meta == {"trace": "abc"}


def test_errors_and_bridge_answers_become_json_text() -> None:
    error = ToolError(code="unknown_tool", message="No tool named 'x'.", hint="Search.")
    refused = call_result(ToolOutcome(name="x", requested="x", arguments={}, content=error.to_json(), error=error))
    answer = call_result(ToolOutcome(name="tool_search", requested="tool_search", arguments={}, content={"tools": []}))
    fault = upstream_fault(UpstreamError("gone", server="s", kind="closed"), tool="s__t", timeout_s=5)
    crashed = call_result(
        ToolOutcome(name="s__t", requested="tool_call", arguments={}, content=fault.error.to_json(), error=fault.error)
    )
    assert refused.is_error and '"unknown_tool"' in text(refused)
    assert not answer.is_error and text(answer) == '{"tools": []}'
    assert crashed.is_error and '"upstream_failed"' in text(crashed)


def test_every_upstream_failure_names_the_server_and_says_whether_the_tool_ran() -> None:
    expected: dict[UpstreamFailure, tuple[str, bool]] = {
        "start": ("upstream_unavailable", True),
        "timeout": ("upstream_timeout", False),
        "closed": ("upstream_failed", False),
        "protocol": ("upstream_failed", False),
    }
    kind: UpstreamFailure
    for kind, (code, not_run) in expected.items():
        exc = UpstreamError("it broke", server="git", kind=kind, stderr="TOKEN=abc123 leaked")
        body = upstream_fault(exc, tool="git__git_log", timeout_s=7).error.to_json()
        assert body["error"]["code"] == code and body["error"]["server"] == "git", kind
        assert body["tool_not_run"] is not_run, kind
        assert "'git'" in body["error"]["message"] and body["error"]["hint"], kind
        assert "abc123" not in str(body), kind
