"""Random tool calls thrown at dispatch: nothing escapes, every refusal is a structured error."""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolscout import ToolError
from toolscout.dispatch._call import BridgeAnswer, ToolCall

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=50),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20,
)
names = st.sampled_from(
    ["tool_search", "tool_describe", "tool_call", "terminal", "github__create_issue", "plugin__danger"]
) | st.text(max_size=300)
raw_arguments = (
    json_values
    | st.text(max_size=2000)
    | st.builds(json.dumps, json_values)
    | st.fixed_dictionaries({"name": names, "arguments": json_values | st.text(max_size=200)})
    | st.fixed_dictionaries({"query": json_values | st.text(max_size=500), "limit": json_values, "offset": json_values})
    | st.fixed_dictionaries({"names": st.lists(names, max_size=12) | json_values})
    | st.just("x" * 100_000)
    | st.just("[" * 5000 + "]" * 5000)
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=names | json_values, arguments=raw_arguments)
def test_random_calls_resolve_to_a_call_an_answer_or_a_structured_error(scout, name, arguments):
    resolution = scout.session("fuzz").resolve(name, arguments)
    assert isinstance(resolution, ToolCall | BridgeAnswer | ToolError)
    if isinstance(resolution, ToolError):
        payload = json.loads(resolution.to_text())
        assert payload["tool_not_run"] is True
        assert payload["error"]["code"]
        assert payload["error"]["hint"]
    if isinstance(resolution, ToolCall):
        assert resolution.name in scout.catalog
        assert resolution.name not in ("tool_search", "tool_describe", "tool_call")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=names, arguments=raw_arguments)
def test_random_calls_through_dispatch_never_raise(scout, name, arguments):
    outcome = scout.session("fuzz").dispatch_sync(name, arguments)
    json.loads(json.dumps(outcome.content, default=str))
    if outcome.error is not None:
        assert outcome.content == outcome.error.to_json()
