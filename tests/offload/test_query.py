import json

import pytest

from toolscout import CharsPerToken, ToolError
from toolscout.offload._query import run_query

pytestmark = pytest.mark.anyio

COUNTER = CharsPerToken()
DATA = json.dumps({"items": [{"id": i, "state": "open" if i % 3 else "closed"} for i in range(300)]}).encode()


async def query(expression, data=DATA, **options):
    options.setdefault("max_tokens", 2000)
    options.setdefault("timeout_s", 5)
    options.setdefault("memory_mb", 1024)
    return await run_query(data, expression, counter=COUNTER, **options)


async def test_a_query_returns_exactly_what_jq_computes():
    answer = await query('[.items[] | select(.state == "closed") | .id] | length')
    assert answer == {"results": [100], "count": 1, "truncated": False}
    ids = await query(".items[] | select(.id < 3) | .id")
    assert ids["results"] == [0, 1, 2]


async def test_json_lines_are_a_stream_of_inputs():
    answer = await query(".a", data=b'{"a": 1}\n{"a": 2}\n')
    assert answer["results"] == [1, 2]


async def test_results_are_bounded_and_say_how_to_narrow():
    answer = await query(".items[]", max_tokens=200)
    assert answer["truncated"] is True
    assert 0 < answer["count"] < 300
    assert sum(COUNTER.count(json.dumps(item, separators=(",", ":"))) for item in answer["results"]) <= 200
    assert "Narrow the query" in answer["hint"]


async def test_a_single_result_too_large_comes_back_as_a_head():
    answer = await query(".", max_tokens=200)
    assert answer["results"] == [] and answer["truncated"] is True
    assert answer["first_result_head"].startswith('{"items":[{"id":0')
    assert answer["first_result_chars"] > 5000


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        pytest.param(".items[", "Invalid jq expression", id="syntax-error"),
        pytest.param(".items | foo", "Invalid jq expression", id="unknown-function"),
        pytest.param(".items.id", "jq error: Cannot index array", id="runtime-error"),
        pytest.param('error("custom")', "jq error: custom", id="user-error"),
        pytest.param("", "empty", id="empty"),
        pytest.param("." * 2001, "limit is 2000", id="too-long"),
        pytest.param('import "x" as y; .', "modules", id="import"),
        pytest.param('# comment\ninclude "a"; .', "modules", id="include-after-comment"),
        pytest.param('"x" | modulemeta', "modules", id="modulemeta"),
        pytest.param("get_search_list", "modules", id="search-list"),
    ],
)
async def test_bad_expressions_are_clear_errors(expression, message):
    answer = await query(expression)
    assert isinstance(answer, ToolError)
    assert answer.code == "query_failed"
    assert message in answer.message


async def test_invalid_json_claiming_to_be_json_is_a_clear_error():
    answer = await query(".", data=b'{"items": [1, 2,')
    assert isinstance(answer, ToolError)
    assert answer.message.startswith("This output is not valid JSON")
    assert "output_search" in answer.hint


@pytest.mark.parametrize(
    "expression",
    [
        pytest.param("def f: f; f", id="infinite-recursion"),
        pytest.param("[range(1e10)] | length", id="huge-array"),
        pytest.param("last(range(1e12))", id="long-loop"),
    ],
)
async def test_runaway_queries_are_stopped(expression):
    answer = await query(expression, timeout_s=1.5)
    assert isinstance(answer, ToolError)
    assert "did not finish" in answer.message or "memory" in answer.message


async def test_an_endless_stream_is_cut_at_the_cap():
    answer = await query("repeat(1)", max_tokens=200)
    assert answer["truncated"] is True and set(answer["results"]) == {1}


async def test_the_environment_is_not_visible(monkeypatch):
    monkeypatch.setenv("TOOLSCOUT_TEST_SECRET", "hunter2")
    answer = await query("$ENV | keys")
    assert "TOOLSCOUT_TEST_SECRET" not in answer["results"][0]
    assert "hunter2" not in json.dumps(await query("env"))


async def test_nan_becomes_null_so_the_answer_stays_json():
    answer = await query("[nan, 1]", data=b"null")
    assert answer["results"] == [[None, 1]]
