import json

import pytest

from toolscout import CatalogError, CharsPerToken, Scope, ScoutSettings, ToolOutcome, ToolScout, ToolSpec
from toolscout.offload import Offloader, OffloadSettings
from toolscout.offload._internal import FileOffloadStore, offload_tools

pytestmark = pytest.mark.anyio

COUNTER = CharsPerToken()
BIG = "".join(f"{i:06d} {'FAIL' if i % 1000 == 7 else 'pass'} {'-' * 40}\n" for i in range(20_000))
ITEMS = {"items": [{"id": i, "state": "open" if i % 4 else "closed"} for i in range(4000)]}


def make(tmp_path, *, settings=None, mode="on", session_bytes=64 << 20, after=None, scope_tools=None):
    results = {"fs__read": BIG, "api__list": ITEMS, "fs__small": "tiny", "api__fail": None}

    def run(call):
        if call.name == "api__fail":
            raise RuntimeError("boom")
        return results[call.name]

    tools = scope_tools or [
        ToolSpec(name="terminal", description="Run a shell command."),
        ToolSpec(name="fs__read", namespace="fs", description="Read a file."),
        ToolSpec(name="fs__small", namespace="fs", description="Read a small file."),
        ToolSpec(name="api__list", namespace="api", description="List items."),
        ToolSpec(name="api__fail", namespace="api", description="Always fails."),
    ]
    offloader = Offloader(
        settings or OffloadSettings(budget_tokens=1000, preview_tokens=300),
        store=FileOffloadStore(tmp_path, session_bytes=session_bytes),
        token_counter=COUNTER,
    )
    return ToolScout(
        tools,
        core=["terminal"],
        settings=ScoutSettings(mode=mode),
        executor=run,
        token_counter=COUNTER,
        offload=offloader,
        after_call=[after] if after else [],
    )


async def test_offload_tools_are_listed_right_after_the_core_tools_and_never_deferred(tmp_path):
    scout = make(tmp_path)
    names = scout.session("s").assemble().names
    assert names == (
        "terminal",
        "output_read",
        "output_search",
        "output_query",
        "tool_search",
        "tool_describe",
        "tool_call",
    )


async def test_offload_tools_are_listed_when_search_is_off_too(tmp_path):
    names = make(tmp_path, mode="off").session("s").assemble().names
    assert names[-3:] == ("output_read", "output_search", "output_query")


async def test_offload_tools_stay_listed_whatever_the_scope(tmp_path):
    scoped = make(tmp_path).session("s", scope=Scope.of(allow=["fs:*"]))
    assert {"output_read", "output_search", "output_query"} <= set(scoped.assemble().names)


async def test_disabled_offloading_lists_nothing_and_changes_nothing(tmp_path):
    scout = make(tmp_path, settings=OffloadSettings(enabled=False))
    session = scout.session("s")
    assert "output_read" not in session.assemble().names
    outcome = await session.dispatch("tool_call", {"name": "fs__read", "arguments": {}})
    assert outcome.content == BIG


async def test_a_large_result_becomes_a_stub_and_reads_back_exactly(tmp_path):
    session = make(tmp_path).session("s")
    outcome = await session.dispatch("tool_call", {"name": "fs__read", "arguments": {}})
    assert not outcome.is_error
    assert COUNTER.count(outcome.to_text()) <= 1000
    handle = outcome.content["parts"][0]["handle"]
    page = await session.dispatch("output_read", {"handle": handle, "start_line": 8, "lines": 3})
    assert page.content["text"] == "".join(BIG.splitlines(keepends=True)[7:10])
    found = await session.dispatch("output_search", {"handle": handle, "pattern": "fail", "context": 0})
    assert [match["line"] for match in found.content["matches"]] == [i + 1 for i in range(20_000) if i % 1000 == 7]


async def test_jq_runs_over_a_stored_json_result(tmp_path):
    session = make(tmp_path).session("s")
    stub = (await session.dispatch("tool_call", {"name": "api__list", "arguments": {}})).content
    handle = stub["parts"][0]["handle"]
    closed = await session.dispatch(
        "output_query", {"handle": handle, "expression": '[.items[] | select(.state == "closed")] | length'}
    )
    assert closed.content == {"handle": handle, "results": [1000], "count": 1, "truncated": False}


async def test_small_results_and_failures_pass_through(tmp_path):
    session = make(tmp_path).session("s")
    assert (await session.dispatch("tool_call", {"name": "fs__small", "arguments": {}})).content == "tiny"
    failed = await session.dispatch("tool_call", {"name": "api__fail", "arguments": {}})
    assert failed.error.code == "tool_failed"


async def test_per_tool_and_per_namespace_overrides(tmp_path):
    settings = OffloadSettings(budget_tokens=1000, namespaces={"fs": "never"}, tools={"api__*": 100_000})
    session = make(tmp_path, settings=settings).session("s")
    assert (await session.dispatch("tool_call", {"name": "fs__read", "arguments": {}})).content == BIG
    assert (await session.dispatch("tool_call", {"name": "api__list", "arguments": {}})).content == ITEMS


async def test_a_tool_override_wins_over_its_namespace(tmp_path):
    settings = OffloadSettings(budget_tokens=1000, namespaces={"fs": "never"}, tools={"fs__read": 2000})
    outcome = (
        await make(tmp_path, settings=settings)
        .session("s")
        .dispatch("tool_call", {"name": "fs__read", "arguments": {}})
    )
    assert outcome.content["offloaded"] is True


async def test_another_sessions_handle_is_refused(tmp_path):
    scout = make(tmp_path)
    stub = (await scout.session("alice").dispatch("tool_call", {"name": "fs__read", "arguments": {}})).content
    handle = stub["parts"][0]["handle"]
    for tool, arguments in (
        ("output_read", {"handle": handle}),
        ("output_search", {"handle": handle, "pattern": "pass"}),
        ("output_query", {"handle": handle, "expression": "."}),
    ):
        refused = await scout.session("mallory").dispatch(tool, arguments)
        assert refused.error.code == "output_not_found"
        assert "pass" not in refused.to_text()


async def test_an_evicted_handle_says_expired_and_to_call_the_tool_again(tmp_path):
    scout = make(tmp_path, session_bytes=2 << 20)
    session = scout.session("s")
    first = (await session.dispatch("tool_call", {"name": "fs__read", "arguments": {}})).content["parts"][0]["handle"]
    await session.dispatch("tool_call", {"name": "fs__read", "arguments": {}})
    expired = await session.dispatch("output_read", {"handle": first})
    assert expired.error.code == "output_expired"
    assert "again" in expired.error.hint


@pytest.mark.parametrize(
    "handle",
    ["../../etc/passwd", "/etc/passwd", "out_0123456789abcdef0123\x00", "out_%2e%2e%2f", "C:\\Windows\\win.ini", ""],
)
async def test_traversal_handles_are_refused(tmp_path, handle):
    outcome = await make(tmp_path).session("s").dispatch("output_read", {"handle": handle})
    assert outcome.error.code == "output_not_found"
    assert "not an output handle" in outcome.error.message


async def test_offload_tools_validate_their_arguments(tmp_path):
    session = make(tmp_path).session("s")
    missing = await session.dispatch("output_search", {"handle": "out_" + "0" * 20})
    assert missing.error.code == "invalid_arguments"
    negative = await session.dispatch("output_read", {"handle": "out_" + "0" * 20, "start_line": 0})
    assert negative.error.code == "invalid_arguments"


async def test_offload_tools_cannot_be_called_through_the_bridge(tmp_path):
    outcome = await make(tmp_path).session("s").dispatch("tool_call", {"name": "output_read", "arguments": {}})
    assert outcome.error.code == "call_directly"


async def test_after_call_hooks_see_the_stub_the_model_gets(tmp_path):
    seen: list[ToolOutcome] = []
    session = make(tmp_path, after=seen.append).session("s")
    outcome = await session.dispatch("tool_call", {"name": "fs__read", "arguments": {}})
    assert seen[-1].content == outcome.content and seen[-1].content["offloaded"] is True


async def test_a_catalog_tool_using_an_offload_name_is_refused(tmp_path):
    with pytest.raises(CatalogError, match="reserved for toolscout's offload tools"):
        make(tmp_path, scope_tools=[ToolSpec(name="output_read", description="mine")])


async def test_passing_the_offload_tools_back_as_tools_is_harmless(tmp_path):
    scout = make(tmp_path, scope_tools=[ToolSpec(name="fs__read", description="Read."), *offload_tools()])
    assert [tool.name for tool in scout.catalog] == ["fs__read"]


async def test_forget_and_close_delete_the_outputs(tmp_path):
    scout = make(tmp_path)
    session = scout.session("s")
    handle = (await session.dispatch("tool_call", {"name": "fs__read", "arguments": {}})).content["parts"][0]["handle"]
    scout.offload.forget("s")
    assert (await session.dispatch("output_read", {"handle": handle})).error.code == "output_not_found"
    await session.dispatch("tool_call", {"name": "fs__read", "arguments": {}})
    scout.close()
    assert list(tmp_path.iterdir()) == []


async def test_the_stub_renders_as_json_text(tmp_path):
    outcome = await make(tmp_path).session("s").dispatch("tool_call", {"name": "fs__read", "arguments": {}})
    assert json.loads(outcome.to_text())["parts"][0]["lines"] == 20_000
