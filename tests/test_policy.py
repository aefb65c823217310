import pytest

from toolscout import Catalog, CharsPerToken, ToolSpec
from toolscout._policy import classify, decide_activation
from toolscout._settings import ScoutSettings
from toolscout._tokens import schema_tokens

COUNTER = CharsPerToken()


def _tools(count: int, *, words: int = 20) -> list[ToolSpec]:
    return [
        ToolSpec(name=f"mcp__tool_{i}", namespace="mcp", description=" ".join(["lorem"] * words)) for i in range(count)
    ]


def _tokens(tools: list[ToolSpec]) -> int:
    return sum(schema_tokens(tool.to_definition(), COUNTER) for tool in tools)


def _activation(tools, **settings):
    classification = classify(Catalog(tools), core=frozenset())
    return decide_activation(classification, ScoutSettings(**settings), COUNTER)


# Threshold table: token share (window chosen so the threshold is exactly T, T+1 or T-1)
# and tool count, under every mode.
@pytest.mark.parametrize(
    ("mode", "delta", "expected"),
    [
        pytest.param("auto", +1, False, id="auto-tokens-below"),
        pytest.param("auto", 0, True, id="auto-tokens-at"),
        pytest.param("auto", -1, True, id="auto-tokens-above"),
        pytest.param("on", +1, True, id="on-ignores-threshold"),
        pytest.param("off", -1, False, id="off-never"),
    ],
)
def test_token_share_threshold(mode, delta, expected):
    tools = _tools(5)
    threshold = _tokens(tools) + delta
    activation = _activation(tools, mode=mode, context_window=threshold * 10, threshold_tools=None)
    assert activation.active is expected
    if mode == "auto":
        assert activation.threshold_tokens == threshold
        assert activation.deferrable_tokens == _tokens(tools)


@pytest.mark.parametrize(
    ("mode", "count", "expected"),
    [
        pytest.param("auto", 9, False, id="auto-count-below"),
        pytest.param("auto", 10, True, id="auto-count-at"),
        pytest.param("auto", 11, True, id="auto-count-above"),
        pytest.param("on", 1, True, id="on-one-tool"),
        pytest.param("off", 500, False, id="off-many-tools"),
    ],
)
def test_tool_count_threshold(mode, count, expected):
    activation = _activation(_tools(count, words=1), mode=mode, threshold_tools=10, context_window=10_000_000)
    assert activation.active is expected
    assert activation.deferrable_count == count


def test_auto_with_unknown_context_window_uses_fallback_tokens():
    tools = _tools(3)
    tokens = _tokens(tools)
    assert not _activation(tools, fallback_threshold_tokens=tokens + 1, threshold_tools=None).active
    active = _activation(tools, fallback_threshold_tokens=tokens, threshold_tools=None)
    assert active.active
    assert active.context_window is None
    assert "unknown context window" in active.reason


def test_auto_reads_the_context_window_of_the_model():
    activation = _activation(_tools(2), model="gpt-4o", threshold_tools=None)
    assert activation.context_window == 128_000
    assert activation.threshold_tokens == 12_800
    assert not activation.active


def test_activation_reports_why():
    activation = _activation(_tools(40, words=1), threshold_tools=30, context_window=1_000_000)
    assert activation.active
    assert "40 deferrable tools reach the tool-count threshold of 30" in activation.reason


def test_on_with_nothing_deferrable_does_not_activate():
    core = ToolSpec(name="terminal")
    classification = classify(Catalog([core]), core=frozenset({"terminal"}))
    activation = decide_activation(classification, ScoutSettings(mode="on"), COUNTER)
    assert not activation.active
    assert activation.deferred == ()


def test_core_tools_are_never_deferred_even_with_policy_always():
    terminal = ToolSpec(name="terminal", defer="always")
    tools = [terminal, *_tools(50)]
    classification = classify(Catalog(tools), core=frozenset({"terminal"}))
    activation = decide_activation(classification, ScoutSettings(mode="on"), COUNTER)
    assert classification.core == (terminal,)
    assert "terminal" not in activation.deferred
    assert len(activation.deferred) == 50


def test_never_policy_and_never_defer_globs_pin_tools():
    tools = [
        ToolSpec(name="write_todos", defer="never"),
        ToolSpec(name="fs__read_file"),
        ToolSpec(name="fs__write_file"),
        ToolSpec(name="github__create_issue"),
    ]
    classification = classify(Catalog(tools), core=frozenset(), never_defer=["fs__*"])
    assert [tool.name for tool in classification.pinned] == ["write_todos", "fs__read_file", "fs__write_file"]
    assert [tool.name for tool in classification.deferrable] == ["github__create_issue"]


def test_always_policy_tools_are_deferred_below_the_auto_threshold():
    tools = [ToolSpec(name="big_rare_tool", defer="always"), ToolSpec(name="small_tool")]
    activation = _activation(tools, context_window=1_000_000, threshold_tools=None)
    assert activation.active
    assert activation.deferred == ("big_rare_tool",)


def test_token_estimate_grows_with_schema_size():
    tiny = ToolSpec(name="t")
    large = [
        ToolSpec(
            name=f"large_{i}",
            description="x" * 400,
            parameters={"type": "object", "properties": {f"p{j}": {"type": "string"} for j in range(20)}},
        )
        for i in range(10)
    ]
    assert _tokens(large) > 10 * _tokens([tiny])


def test_a_null_token_share_leaves_the_decision_to_the_tool_count():
    # everruns and AstrBot decide by count alone: huge schemas below the count stay in full.
    big = _tools(4, words=5_000)
    assert not _activation(big, threshold_pct=None, threshold_tools=5, fallback_threshold_tokens=1).active
    counted = _activation(_tools(5, words=1), threshold_pct=None, threshold_tools=5)
    assert counted.active and counted.threshold_tokens is None
    assert "tool-count threshold of 5" in counted.reason


def test_with_no_threshold_at_all_auto_defers_only_the_always_policy():
    tools = [*_tools(50), ToolSpec(name="later", description="x", defer="always")]
    activation = _activation(tools, threshold_pct=None, threshold_tools=None)
    assert activation.deferred == ("later",)
    assert "no threshold is set" in activation.reason
