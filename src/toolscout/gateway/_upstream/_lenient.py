"""Repair or drop malformed tools in an upstream's `tools/list` answer before the SDK reads it.

The `mcp` SDK validates a `tools/list` result as a whole: one tool whose ``inputSchema``
lacks ``"type": "object"`` (every tool of ``@modelcontextprotocol/server-gitlab`` 2025.4.25
installed on its own) makes it reject the page, and the server's every tool is lost.
`lenient_tool_listing` wraps a client transport: it notes the ids of outgoing `tools/list`
requests and rewrites their responses tool by tool with `repair_tools`, so the SDK's typed
client only ever sees tools it accepts. Tools whose meaning is clear are repaired (and
logged); a truly malformed tool is left out and reported by name, never the rest. A listing of
more than `OFF_LOOP_TOOLS` tools is repaired in a worker thread (3,000 tools cost a tenth
of a second of CPU or more), so a server re-listed in a storm of `list_changed` never stalls the
event loop, and every other client, meanwhile; its connection's messages keep their order. A page of
resources, templates or prompts is cut to one more entry than the upstream may list
(`cut_listing`) before the SDK reads it, so a page of 500,000 costs no more than one of 10,001.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from types import TracebackType
from typing import Protocol, Self, cast

import anyio
import anyio.to_thread
from mcp.client import Transport
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse, Tool
from mcp_types.methods import validate_server_result
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from ..._clipping import clip
from ..._errors import CatalogError
from ..._types import JsonObject
from ...catalog._internal import iter_tool_specs, normalize_parameters
from ._records import DEFAULT_LIMITS, ToolProblem, UpstreamLimits, UpstreamTool

__all__ = [
    "OFF_LOOP_TOOLS",
    "RepairLog",
    "cut_listing",
    "lenient_tool_listing",
    "listed_most",
    "namespaced_tools",
    "repair_tools",
]

logger = logging.getLogger("toolscout.gateway")

OFF_LOOP_TOOLS = 100
"""Listings of more tools than this are repaired and namespaced in a worker thread, off the event loop."""


@dataclass(slots=True)
class RepairLog:
    """What `repair_tools` did to the listings of one connection (drained by the reader)."""

    repaired: list[str] = field(default_factory=list)
    """Names of tools whose input schema was normalized."""
    skipped: list[ToolProblem] = field(default_factory=list)
    """Tools left out."""

    def drain(self) -> tuple[tuple[str, ...], tuple[ToolProblem, ...]]:
        """Return and forget everything logged so far."""
        out = (tuple(self.repaired), tuple(self.skipped))
        self.repaired.clear()
        self.skipped.clear()
        return out


def repair_tools(
    result: JsonObject,
    *,
    server: str,
    version: str | None,
    log: RepairLog,
    limits: UpstreamLimits = DEFAULT_LIMITS,
) -> JsonObject:
    """Return a `tools/list` result whose every tool the SDK and the catalog accept, within `limits`.

    A page of more than ``limits.max_tools`` tools is cut to one more than that (the reader of every page
    reports the excess), a description over ``limits.max_description_chars`` is cut, and a tool whose
    schema is over ``limits.max_schema_bytes`` is left out.

    Args:
        result: The raw JSON-RPC result (``{"tools": [...], "nextCursor": ...}``).
        server: The upstream's name, for messages.
        version: The negotiated protocol version, whose wire schema each tool is checked against.
        log: Receives the repaired tool names and the left-out tools.
        limits: What the upstream may list.
    """
    tools = result.get("tools")
    envelope = {**result, "tools": []}
    if not isinstance(tools, list) or not _envelope_ok(envelope, version):
        return result  # the fault is not in a tool: the SDK's own error names it
    kept: list[JsonObject] = []
    seen: set[str] = set()
    for index, raw in enumerate(tools[: limits.max_tools + 1]):
        name = raw.get("name") if isinstance(raw, dict) else None
        label = name if isinstance(name, str) and name else None
        try:
            tool, repaired = _repair_one(_within(raw, server, label, limits), index)
        except _Malformed as exc:
            logger.warning("upstream %r: left out tool %r: %s", server, label or f"#{index}", exc)
            log.skipped.append(ToolProblem(server=server, tool=label, message=str(exc)))
            continue
        problem = _sdk_rejection(tool, envelope, version)
        if problem is None and label in seen:
            problem = "a second tool with this name; the first one is kept"
        if problem is not None:
            logger.warning("upstream %r: left out tool %r: %s", server, label, problem)
            log.skipped.append(ToolProblem(server=server, tool=label, message=problem))
            continue
        if repaired:
            logger.info(
                'upstream %r: tool %r has an inputSchema without "type": "object"; normalized it', server, label
            )
            log.repaired.append(cast(str, label))
        seen.add(cast(str, label))
        kept.append(tool)
    return {**result, "tools": kept}


_LISTED = {"resources/list": "resources", "resources/templates/list": "resourceTemplates", "prompts/list": "prompts"}
"""The listings `cut_listing` cuts, and the key of their entries."""


def listed_most(method: str, limits: UpstreamLimits) -> int:
    """The most entries an upstream may list in answer to `method` (one of `_LISTED`)."""
    return limits.max_prompts if method == "prompts/list" else limits.max_resources


def cut_listing(method: str, result: JsonObject, limits: UpstreamLimits) -> JsonObject:
    """A `method` page (resources, templates, prompts) cut to one entry more than `limits` allow.

    The one more tells the reader of the pages that the upstream lists too many.
    """
    key = _LISTED[method]
    entries = result.get(key)
    most = listed_most(method, limits)
    if isinstance(entries, list) and len(entries) > most + 1:
        return {**result, key: entries[: most + 1]}
    return result


# The MCP tool fields the catalog keeps (not `_meta`, `icons`, `execution`).
_DEFINITION_KEYS = ("title", "description", "inputSchema", "outputSchema", "annotations", "_meta")


def namespaced_tools(
    raw: list[Tool], *, server: str, separator: str, problems: list[ToolProblem]
) -> tuple[UpstreamTool, ...]:
    """Turn the SDK's tools into catalog records named ``server<separator>tool``.

    A tool listed twice, or one the catalog rejects, is left out and appended to `problems`.
    """
    out: list[UpstreamTool] = []
    seen: set[str] = set()
    for tool in raw:
        problem: str | None = "listed twice; the first one is kept" if tool.name in seen else None
        if problem is None:
            wire = tool.model_dump(by_alias=True, mode="json", exclude_none=True)
            definition: JsonObject = {key: wire[key] for key in _DEFINITION_KEYS if key in wire}
            definition["name"] = f"{server}{separator}{tool.name}"
            try:
                (spec,) = iter_tool_specs(definition, namespace=server)
            except CatalogError as exc:
                problem = str(exc)
        if problem is not None:
            logger.warning("upstream %r: left out tool %r: %s", server, tool.name, problem)
            problems.append(ToolProblem(server=server, tool=tool.name, message=problem))
            continue
        seen.add(tool.name)
        out.append(UpstreamTool(spec=spec, upstream_name=tool.name))
    return tuple(out)


class _Malformed(ValueError):
    pass


def _within(raw: object, server: str, label: str | None, limits: UpstreamLimits) -> object:
    """`raw` with its description cut to the limit; `_Malformed` when a schema is over its limit."""
    if not isinstance(raw, dict):
        return raw
    for key in ("inputSchema", "outputSchema"):
        size = len(json.dumps(raw.get(key), ensure_ascii=False, default=str).encode())
        if size > limits.max_schema_bytes:
            most = limits.max_schema_bytes
            raise _Malformed(
                f"its {key} is {size:,} bytes of JSON, over {most:,} (toolscout.upstream_max_schema_bytes)"
            )
    description = raw.get("description")
    if isinstance(description, str) and len(description) > limits.max_description_chars:
        logger.warning(
            "upstream %r: tool %r has a description of %s characters; cut to %s "
            "(toolscout.upstream_max_description_chars)",
            server,
            label,
            f"{len(description):,}",
            f"{limits.max_description_chars:,}",
        )
        return {**raw, "description": clip(description, limits.max_description_chars)}
    return raw


def _repair_one(raw: object, index: int) -> tuple[JsonObject, bool]:
    if not isinstance(raw, dict):
        raise _Malformed(f"tools[{index}] is not an object")
    tool = cast(JsonObject, raw)
    name = tool.get("name")
    if not isinstance(name, str) or not name:
        raise _Malformed(f"tools[{index}] has no name")
    try:
        schema = normalize_parameters(tool.get("inputSchema"), tool_name=name)
        fixed = {**tool, "inputSchema": schema}
        # The catalog must accept it too (description, annotations, output schema types).
        list(iter_tool_specs({key: fixed[key] for key in _CATALOG_KEYS if key in fixed}))
    except CatalogError as exc:
        raise _Malformed(str(exc).removeprefix(f"tool {name!r}: ")) from None
    return fixed, schema != tool.get("inputSchema")


_CATALOG_KEYS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")


def _sdk_rejection(tool: JsonObject, envelope: JsonObject, version: str | None) -> str | None:
    """Why the SDK would reject this one tool in `envelope` (the result's other fields), or None."""
    try:
        Tool.model_validate(tool, by_name=False)
        if version in KNOWN_PROTOCOL_VERSIONS:
            validate_server_result("tools/list", version, {**envelope, "tools": [tool]})
    except ValidationError as exc:
        error = exc.errors(include_input=False, include_url=False)[0]
        loc = error["loc"][2:] if error["loc"][:2] == ("tools", 0) else error["loc"]
        where = ".".join(str(part) for part in loc) or "(tool)"
        return f"rejected by the MCP schema at {where}: {error['msg']}"
    return None


def _envelope_ok(envelope: JsonObject, version: str | None) -> bool:
    if version not in KNOWN_PROTOCOL_VERSIONS:
        return True
    try:
        validate_server_result("tools/list", version, envelope)
    except ValidationError:
        return False
    return True


class _Receiver(Protocol):
    async def receive(self) -> SessionMessage | Exception: ...
    async def aclose(self) -> None: ...


class _Sender(Protocol):
    async def send(self, item: SessionMessage, /) -> None: ...
    async def aclose(self) -> None: ...


@asynccontextmanager
async def lenient_tool_listing(
    inner: Transport,
    *,
    server: str,
    version: Callable[[], str | None],
    log: RepairLog,
    limits: UpstreamLimits = DEFAULT_LIMITS,
    on_end: Callable[[], None] = lambda: None,
) -> AsyncIterator[tuple[_RepairingReader, _ListingRecorder]]:
    """Wrap a client transport so its `tools/list` answers pass through `repair_tools`.

    Args:
        inner: The real transport (stdio or Streamable HTTP).
        server: The upstream's name, for messages.
        version: Returns the negotiated protocol version (known once the handshake is done).
        log: Receives what was repaired and what was left out.
        limits: What the upstream may list.
        on_end: Called when the read side ends (a stdio server exited); must not raise.
    """
    async with inner as (read_stream, write_stream):
        state = _Connection()

        async def repair(method: str, result: JsonObject) -> JsonObject:
            if method in _LISTED:
                return cut_listing(method, result, limits)
            work = partial(repair_tools, result, server=server, version=version(), log=log, limits=limits)
            tools = result.get("tools")
            if isinstance(tools, list) and len(tools) > OFF_LOOP_TOOLS:
                return await anyio.to_thread.run_sync(work)  # the reader waits: this connection keeps its order
            return work()

        yield _RepairingReader(read_stream, state, repair, on_end), _ListingRecorder(write_stream, state)


_TOOLS_CHANGED = "notifications/tools/list_changed"


@dataclass(slots=True)
class _Connection:
    """What the two sides of one wrapped connection share."""

    pending: dict[str, str] = field(default_factory=dict)
    """The ids of the listing requests awaiting their answer, and their methods."""
    tools_change_told: bool = False
    """A `tools/list_changed` was passed on since the last `tools/list` request: another tells nothing new."""


class _ListingRecorder:
    """Write side: remembers the ids of `tools/list` requests and of the listings `cut_listing` cuts."""

    def __init__(self, inner: _Sender, state: _Connection) -> None:
        self._inner = inner
        self._state = state

    async def send(self, item: SessionMessage, /) -> None:
        message = item.message
        if isinstance(message, JSONRPCRequest) and (message.method == "tools/list" or message.method in _LISTED):
            self._state.pending[str(message.id)] = message.method
            if message.method == "tools/list":
                self._state.tools_change_told = False
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        await self.aclose()
        return None


class _RepairingReader:
    """Read side: passes `tools/list` (and other listing) responses through the repair function.

    A `tools/list_changed` is dropped when one was passed on since the last `tools/list` request: a server
    sending thousands a second then costs the SDK (a task each) and the gateway nothing until it re-lists.
    """

    def __init__(
        self,
        inner: _Receiver,
        state: _Connection,
        repair: Callable[[str, JsonObject], Awaitable[JsonObject]],
        on_end: Callable[[], None],
    ) -> None:
        self._inner = inner
        self._state = state
        self._repair = repair
        self._on_end = on_end

    async def receive(self) -> SessionMessage | Exception:
        item = await self._next()
        if not isinstance(item, SessionMessage):
            return item
        message = item.message
        if isinstance(message, JSONRPCResponse | JSONRPCError) and str(message.id) in self._state.pending:
            method = self._state.pending.pop(str(message.id))
            if isinstance(message, JSONRPCResponse):
                try:
                    result = await self._repair(method, message.result)
                except Exception:  # boundary: this runs in the SDK's read loop, which must never die
                    logger.exception("repairing a %s answer failed; passing it on unchanged", method)
                    return item
                repaired = JSONRPCResponse(jsonrpc="2.0", id=message.id, result=result)
                return SessionMessage(message=repaired, metadata=item.metadata)
        return item

    async def _next(self) -> SessionMessage | Exception:
        """The next message, past the `tools/list_changed` that tell nothing new."""
        while True:
            try:
                item = await self._inner.receive()
            except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                self._on_end()
                raise
            message = item.message if isinstance(item, SessionMessage) else None
            if not isinstance(message, JSONRPCNotification) or message.method != _TOOLS_CHANGED:
                return item
            if not self._state.tools_change_told:
                self._state.tools_change_told = True
                return item

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        await self.aclose()
        return None
