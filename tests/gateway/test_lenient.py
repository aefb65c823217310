from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import pytest
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from mcp.types import Tool
from mcp_types import JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

from toolscout.gateway._upstream._dump import mcp_definition
from toolscout.gateway._upstream._lenient import RepairLog, lenient_tool_listing, namespaced_tools, repair_tools

GOOD = {"name": "good", "description": "Fine.", "inputSchema": {"type": "object", "properties": {}}}
# What @modelcontextprotocol/server-gitlab 2025.4.25 sends when installed on its own.
GITLAB_LIKE = {"name": "create_issue", "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#"}}
# Result fields around the tools; 2026-07-28 requires the cache hints.
ENVELOPE = {"nextCursor": "c1", "ttlMs": 0, "cacheScope": "private", "resultType": "complete"}
NO_TYPE = {"name": "no_type", "inputSchema": {"properties": {"q": {"type": "string"}}, "required": ["q"]}}


def repair(tools: list[object], version: str | None = "2025-11-25") -> tuple[dict[str, object], RepairLog]:
    log = RepairLog()
    result = repair_tools({**ENVELOPE, "tools": tools}, server="srv", version=version, log=log)
    return result, log


def names(result: dict[str, object]) -> list[str]:
    tools = result["tools"]
    assert isinstance(tools, list)
    return [tool["name"] for tool in tools]


def test_a_well_formed_listing_passes_unchanged() -> None:
    result, log = repair([GOOD])
    assert result == {**ENVELOPE, "tools": [GOOD]}
    assert log.drain() == ((), ())


@pytest.mark.parametrize("version", ["2024-11-05", "2025-11-25", "2026-07-28", None])
def test_schemas_without_an_object_type_are_normalized_and_logged(
    version: str | None, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="toolscout.gateway"):
        result, log = repair([GITLAB_LIKE, NO_TYPE, GOOD], version)
    assert names(result) == ["create_issue", "no_type", "good"]
    tools = result["tools"]
    assert isinstance(tools, list)
    assert tools[0]["inputSchema"]["type"] == "object"
    assert tools[1]["inputSchema"] == {"type": "object", **NO_TYPE["inputSchema"]}  # type: ignore[dict-item]
    assert log.drain() == (("create_issue", "no_type"), ())
    assert "'create_issue'" in caplog.text and "normalized" in caplog.text


@pytest.mark.parametrize(
    ("tool", "name", "why"),
    [
        ({"name": "s", "inputSchema": {"type": "string"}}, "s", "type 'object'"),
        ({"name": "l", "inputSchema": ["not", "a", "schema"]}, "l", "must be a JSON object"),
        ({"name": "r", "inputSchema": {"type": "object", "required": "q"}}, "r", "invalid JSON Schema"),
        ({"name": "d", "description": 7, "inputSchema": {"type": "object"}}, "d", "'description' must be a string"),
        ({"name": "a", "inputSchema": {"type": "object"}, "annotations": "ro"}, "a", "'annotations' must be an object"),
        ({"name": "n m", "inputSchema": {"type": "object"}}, "n m", "invalid"),
        ({"description": "no name", "inputSchema": {"type": "object"}}, None, "has no name"),
        ("just a string", None, "is not an object"),
    ],
)
def test_a_truly_malformed_tool_costs_only_itself(tool: object, name: str | None, why: str) -> None:
    result, log = repair([GOOD, tool, NO_TYPE])
    assert names(result) == ["good", "no_type"]
    repaired, skipped = log.drain()
    assert repaired == ("no_type",)
    assert [(problem.server, problem.tool) for problem in skipped] == [("srv", name)]
    assert why in skipped[0].message


def test_a_tool_the_sdk_wire_schema_rejects_is_left_out_by_name() -> None:
    bad_annotations = {"name": "x", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": "maybe"}}
    result, log = repair([bad_annotations, GOOD])
    assert names(result) == ["good"]
    (problem,) = log.drain()[1]
    assert problem.tool == "x" and "annotations.readOnlyHint" in problem.message


def test_a_second_tool_with_the_same_name_is_left_out() -> None:
    result, log = repair([GOOD, {**GOOD, "description": "Again."}])
    assert names(result) == ["good"]
    assert "first one is kept" in log.drain()[1][0].message


@pytest.mark.parametrize(
    ("result", "version"),
    [
        ({"tools": "none"}, "2025-11-25"),
        ({"tools": [NO_TYPE], "nextCursor": 5}, "2025-11-25"),
        ({"tools": [NO_TYPE]}, "2026-07-28"),
    ],
)
def test_a_fault_outside_the_tools_is_left_for_the_sdk_to_reject(result: dict[str, object], version: str) -> None:
    log = RepairLog()
    assert repair_tools(result, server="srv", version=version, log=log) is result
    assert log.drain() == ((), ())


def test_an_upstream_tools_meta_reaches_its_record_and_its_remembered_definition() -> None:
    tool = Tool.model_validate({"name": "read_file", "inputSchema": {"type": "object"}, "_meta": {"deprecated": True}})
    (listed,) = namespaced_tools([tool], server="fs", separator="__", problems=[])
    assert listed.spec.meta == {"deprecated": True}
    assert mcp_definition(listed.spec)["_meta"] == {"deprecated": True}


@asynccontextmanager
async def _memory_transport(
    answers: list[SessionMessage],
) -> AsyncIterator[
    tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]
]:
    """A transport whose server has already written `answers`; what the client sends is kept unread."""
    to_client, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](len(answers))
    to_server, from_client = anyio.create_memory_object_stream[SessionMessage](10)
    for answer in answers:
        to_client.send_nowait(answer)
    with to_client, from_server, to_server, from_client:
        yield from_server, to_server


@pytest.mark.anyio
async def test_a_large_listing_is_repaired_off_the_event_loop_in_order(caplog: pytest.LogCaptureFixture) -> None:
    # 3,000 tools cost about a second to repair: on the event loop that second blocks every other client.
    tools: list[object] = [{**NO_TYPE, "name": f"t{index}"} for index in range(1000)]
    listing = SessionMessage(message=JSONRPCResponse(jsonrpc="2.0", id=1, result={"tools": tools}))
    after = SessionMessage(message=JSONRPCNotification(jsonrpc="2.0", method="notifications/tools/list_changed"))
    log = RepairLog()
    with caplog.at_level(logging.INFO, logger="toolscout.gateway"):
        transport = lenient_tool_listing(
            _memory_transport([listing, after]), server="srv", version=lambda: "2025-11-25", log=log
        )
        async with transport as (reader, writer):
            await writer.send(SessionMessage(message=JSONRPCRequest(jsonrpc="2.0", id=1, method="tools/list")))
            first, second = await reader.receive(), await reader.receive()
    threads = {record.thread for record in caplog.records if "normalized" in record.getMessage()}
    assert threads and threading.get_ident() not in threads
    expected = repair_tools({"tools": tools}, server="srv", version="2025-11-25", log=RepairLog())
    assert isinstance(first, SessionMessage) and isinstance(first.message, JSONRPCResponse)
    assert first.message.result == expected
    assert second is after
    assert log.drain()[0] == tuple(f"t{index}" for index in range(1000))


@pytest.mark.anyio
async def test_tool_list_changes_between_two_listings_reach_the_client_once() -> None:
    # A server sending list_changed in a tight loop (thousands a second) must not cost the event loop one
    # dispatch per notification: until the client lists the tools again, a second one tells it nothing new.
    def changed() -> SessionMessage:
        return SessionMessage(message=JSONRPCNotification(jsonrpc="2.0", method="notifications/tools/list_changed"))

    def listed(id_: int) -> SessionMessage:
        return SessionMessage(message=JSONRPCResponse(jsonrpc="2.0", id=id_, result={"tools": [GOOD]}))

    other = SessionMessage(message=JSONRPCNotification(jsonrpc="2.0", method="notifications/resources/list_changed"))
    told = [changed() for _ in range(6)]
    stream = [told[0], told[1], other, told[2], listed(1), told[3], told[4], listed(2), told[5]]
    transport = lenient_tool_listing(
        _memory_transport(stream), server="srv", version=lambda: "2025-11-25", log=RepairLog()
    )
    received: list[SessionMessage | Exception] = []
    async with transport as (reader, writer):
        for id_, reads in ((1, 3), (2, 2), (3, 1)):
            await writer.send(SessionMessage(message=JSONRPCRequest(jsonrpc="2.0", id=id_, method="tools/list")))
            received += [await reader.receive() for _ in range(reads)]
    answers = [item.message.id for item in received if isinstance(item, SessionMessage) and hasattr(item.message, "id")]
    assert answers == [1, 2]
    passed = [received[index] for index in (0, 1, 3, 5)]
    assert all(got is sent for got, sent in zip(passed, [told[0], other, told[3], told[5]], strict=True))
    assert all(item is not told[index] for item in received for index in (1, 2, 4))
