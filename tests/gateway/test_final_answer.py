"""The answer is final before anyone sees it: what observers record is what the client receives, serialised once.

An in-process `Gateway` in front of real upstream servers (and one that fails to start), driven by the SDK's
in-memory client. The gateway's additions (``servers_not_ready``, the reveal hint for a client that keeps its
first tool list) are handed to dispatch before the answer is built, so the activity log's event measures the
client's bytes, and each answer is written to JSON once and encoded to text once.
"""

from __future__ import annotations

import json
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import anyio
import pytest
from mcp.client import Client

from tests.gateway.conftest import LIMIT_S, real_servers, text
from toolscout.dispatch import LoadAnswer, SearchAnswer, ToolOutcome
from toolscout.gateway import Gateway, GatewayConfig
from toolscout.observe import ActivityEvent

pytestmark = pytest.mark.anyio

_BUILDS = frozenset({SearchAnswer.to_json.__code__, LoadAnswer.to_json.__code__})
_ENCODE = json.JSONEncoder.encode.__code__


def config(tmp_path: Path) -> GatewayConfig:
    servers = real_servers(tmp_path)
    broken = {"command": sys.executable, "args": ["-c", "raise SystemExit(3)"]}
    chosen = {"time": servers["time"], "memory": servers["memory"], "broken": broken}
    settings = {"store": "memory", "offload": False, "style": "reveal", "mode": "on"}
    return GatewayConfig.from_mapping({"mcpServers": chosen, "toolscout": settings})


class Serialisations:
    """Counts, in every thread, each answer record written to JSON (``to_json``) and each answer encoded to text.

    A profile function (Python's own seam, `sys.setprofile`) observes the calls; nothing of toolscout is
    replaced. It is installed in this thread and in every thread started while it is (the gateway's worker
    threads), and counts only inside `counting`.
    """

    def __init__(self) -> None:
        self.counts: Counter[str] | None = None
        self.closed = False

    def profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if self.closed:  # a thread still running after the test: leave it unprofiled
            sys.setprofile(None)
            return
        if event != "call" or self.counts is None:
            return
        code = frame.f_code
        if code in _BUILDS:
            self.counts["built"] += 1
        elif code is _ENCODE:
            encoded = frame.f_locals.get("o")
            if isinstance(encoded, dict) and "hint" in encoded and "tools" in encoded:
                self.counts["encoded"] += 1

    @contextmanager
    def counting(self) -> Iterator[Counter[str]]:
        counts: Counter[str] = Counter()
        self.counts = counts
        try:
            yield counts
        finally:
            self.counts = None


@contextmanager
def serialisations() -> Iterator[Serialisations]:
    """A `Serialisations` profiling this thread and every thread started inside the block."""
    watcher = Serialisations()
    threading.setprofile(watcher.profile)
    sys.setprofile(watcher.profile)
    try:
        yield watcher
    finally:
        watcher.closed = True
        sys.setprofile(None)
        threading.setprofile(None)


async def test_observers_see_the_bytes_the_client_receives_and_each_answer_is_serialised_once(
    tmp_path: Path,
) -> None:
    events: list[ActivityEvent] = []
    outcomes: list[ToolOutcome] = []
    answers: list[tuple[str, dict[str, Any], Counter[str]]] = []

    async def search(client: Client, query: str) -> None:
        with watcher.counting() as counts:
            received = text(await client.call_tool("tool_search", {"query": query}))
        answers.append((received, json.loads(received), counts))

    with anyio.fail_after(LIMIT_S), serialisations() as watcher:
        async with (
            Gateway(
                config(tmp_path), transport="stdio", wait_for_upstreams=True, after_call=[outcomes.append]
            ) as gateway,
            Client(gateway.server, mode="legacy") as client,
        ):
            gateway.activity.add_listener(events.append)
            await client.list_tools()
            await search(client, "time__get_current_time")  # its client sees the reveal: told so
            bridged = {"name": "time__get_current_time", "arguments": {"timezone": "Asia/Tokyo"}}
            await client.call_tool("tool_call", bridged)  # called without listing again: it keeps its first list
            await search(client, "memory__read_graph")  # so this reveal's hint names the call tool
    searches = [event for event in events if event.kind == "search"]
    hooked = [outcome.to_text() for outcome in outcomes if outcome.name == "tool_search"]
    (seen, seen_json, seen_counts), (unseen, unseen_json, unseen_counts) = answers
    assert [tool["name"] for tool in seen_json["tools"]] == ["time__get_current_time"]
    assert [tool["name"] for tool in unseen_json["tools"]] == ["memory__read_graph"]
    for answer in (seen_json, unseen_json):
        assert [server["server"] for server in answer["servers_not_ready"]] == ["broken"]
    assert unseen_json["hint"].startswith("Your tool list does not change")
    assert hooked == [seen, unseen]
    assert [event.bytes_out for event in searches] == [len(seen.encode()), len(unseen.encode())]
    assert [event.hits for event in searches] == [("time__get_current_time",), ("memory__read_graph",)]
    for counts in (seen_counts, unseen_counts):
        assert counts == Counter(built=1, encoded=1)
