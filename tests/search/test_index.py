import dataclasses

import pytest

from toolscout import Catalog, ScoutSettings, SearchError, ToolSpec
from toolscout.search import SearchHit, SearchResult, build_searcher
from toolscout.search._index import IndexConfig, ToolIndex, build_index


def _tool(name: str, description: str, namespace: str | None = None, **params: str) -> ToolSpec:
    properties = {key: {"type": "string", "description": text} for key, text in params.items()}
    return ToolSpec(
        name=name,
        description=description,
        namespace=namespace,
        parameters={"type": "object", "properties": properties},
    )


CATALOG = Catalog(
    [
        _tool("get_weather", "Get the current weather for a city.", city="City name, e.g. Paris."),
        _tool("get_forecast", "Daily weather forecast for the next days.", city="City name.", days="How many days."),
        _tool("send_message", "Send a chat message to a channel.", "slack", channel="Channel id.", text="Message."),
        _tool("list_channels", "List the channels of the workspace.", "slack"),
        _tool("send_email", "Send an email to a recipient.", "gmail", to="Recipient address.", body="Email body."),
        _tool("create_issue", "Open a new issue in a repository.", "github", repo="owner/name", title="Title."),
        _tool("list_pull_requests", "List open pull requests of a repository.", "github", repo="owner/name"),
        _tool("query_database", "Run a read-only SQL query against the analytics database.", sql="SELECT text."),
        _tool("convert_currency", "Convert an amount between currencies.", amount="Amount.", to="Target code."),
        _tool("translate_text", "把文本翻译成另一种语言。", text="要翻译的文本。"),
        _tool("book_flight", "Book a flight between two airports.", origin="IATA code.", destination="IATA code."),
        _tool("HTTPRequest", "Send an HTTP request to a URL.", url="The URL."),
    ]
)
INDEX = build_index(CATALOG)


def names(query: str, **kwargs: object) -> list[str]:
    return [hit.name for hit in INDEX.search(query, **kwargs).hits]  # type: ignore[arg-type]


def test_search_ranks_the_matching_tool_first() -> None:
    assert names("what's the weather like in Paris right now")[0] == "get_weather"
    assert names("open a new issue in my repository")[0] == "create_issue"


@pytest.mark.parametrize(
    "query",
    [
        pytest.param("send_email", id="plain"),
        pytest.param("`send_email`", id="backticked"),
        pytest.param('"send_email"', id="double-quoted"),
        pytest.param("'send_email'", id="single-quoted"),
        pytest.param("send_email()", id="call-form"),
        pytest.param("gmail__send_email", id="double-underscore-namespace"),
        pytest.param("gmail.send_email", id="dotted-namespace"),
        pytest.param("gmail:send_email", id="colon-namespace"),
        pytest.param("please use `send_email` for this", id="quoted-inside-a-request"),
    ],
)
def test_exact_tool_name_ranks_that_tool_first(query: str) -> None:
    assert names(query)[0] == "send_email"
    assert INDEX.exact_match(query) == "send_email"


def test_exact_name_wins_over_a_better_keyword_match() -> None:
    assert names("send_message")[0] == "send_message"
    assert names("slack.send_message send email")[0] == "send_message"


def test_a_name_mentioned_in_a_longer_request_follows_the_best_match_of_the_whole_request() -> None:
    query = "send_message failed, so open a new issue in my repository"
    assert names(query)[:2] == ["create_issue", "send_message"]
    dense = _FixedDense([("create_issue", 0.9), ("list_pull_requests", 0.5)])
    hybrid = build_index(CATALOG, dense=dense).search(query, mode="hybrid")
    assert [hit.name for hit in hybrid.hits][:2] == ["create_issue", "send_message"]
    assert hybrid.hits[1].score == hybrid.hits[0].score  # kept at the top score: no cutoff drops a named tool


def test_no_match_returns_zero_hits_and_suggestions() -> None:
    result = INDEX.search("quantum entanglement simulator")
    assert result.hits == ()
    assert result.total == 0
    assert result.suggestions
    assert set(result.suggestions) <= {tool.name for tool in CATALOG}


def test_suggestions_name_the_nearest_tools() -> None:
    result = INDEX.search("sendemail")
    assert result.hits == ()
    assert result.suggestions[0] == "send_email"


def test_one_unknown_word_does_not_empty_a_result() -> None:
    assert names("forecast zorblax")[0] == "get_forecast"
    assert names("flight to Ouagadougou")[0] == "book_flight"


def test_misspelled_tool_word_is_corrected() -> None:
    assert names("wether")[0] == "get_weather"
    assert names("sned message")[0] == "send_message"
    assert names("send msg")[0] == "send_message"


def test_cjk_query_finds_tool_with_chinese_description() -> None:
    assert names("翻译文本")[0] == "translate_text"


def test_camel_case_and_acronym_names_are_searchable() -> None:
    assert names("http request")[0] == "HTTPRequest"


def test_allowed_filter_never_leaks_into_hits_or_suggestions() -> None:
    allowed = {"get_forecast", "list_channels"}
    assert names("weather in Paris", allowed=allowed) == ["get_forecast"]
    assert names("send_email", allowed=allowed) == []
    result = INDEX.search("send an email", allowed=allowed)
    assert {hit.name for hit in result.hits} <= allowed
    assert set(result.suggestions) <= allowed
    assert INDEX.exact_match("send_email", allowed=allowed) is None
    assert {name for name, _ in INDEX.rank("send an email", allowed=allowed)} <= allowed
    assert names(".*", mode="regex", allowed=allowed, limit=10) == ["get_forecast", "list_channels"]


def test_empty_allowed_set_returns_nothing() -> None:
    result = INDEX.search("weather", allowed=set())
    assert (result.hits, result.suggestions) == ((), ())


def test_empty_query_browses_the_catalog_in_order() -> None:
    result = INDEX.search("  ", limit=3)
    assert [hit.name for hit in result.hits] == ["get_weather", "get_forecast", "send_message"]
    assert result.total == len(CATALOG)


def test_limit_and_hard_cap_bound_the_hits() -> None:
    assert len(INDEX.search("", limit=2).hits) == 2
    capped = ToolIndex(CATALOG, config=IndexConfig(max_limit=4))
    assert len(capped.search("", limit=100).hits) == 4
    with pytest.raises(SearchError, match="limit"):
        INDEX.search("weather", limit=0)


def test_top_band_drops_weak_tails() -> None:
    result = INDEX.search("weather forecast for the next days")
    assert [hit.name for hit in result.hits][0] == "get_forecast"
    assert "send_email" not in [hit.name for hit in result.hits]
    assert all(hit.score > 0 for hit in result.hits)


def test_hits_carry_namespace_and_descending_scores() -> None:
    hits = INDEX.search("list channels pull requests").hits
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)
    assert {hit.name for hit in hits} >= {"list_channels", "list_pull_requests"}
    assert all(hit.namespace == CATALOG[hit.name].namespace for hit in hits)


def test_regex_mode_matches_names_and_descriptions() -> None:
    result = INDEX.search("^list_|channel", mode="regex", limit=10)
    assert result.mode == "regex"
    assert [hit.name for hit in result.hits][0] == "list_channels"
    assert {hit.name for hit in result.hits} == {"list_channels", "list_pull_requests", "send_message"}


def test_regex_mode_rejects_invalid_and_over_long_patterns() -> None:
    with pytest.raises(SearchError):
        INDEX.search("(unclosed", mode="regex")
    with pytest.raises(SearchError, match="200"):
        INDEX.search("x" * 201, mode="regex")


def test_hybrid_without_dense_ranker_runs_lexical() -> None:
    result = INDEX.search("weather", mode="hybrid")
    assert result.mode == "lexical"
    assert result.hits[0].name == "get_weather"


class _FixedDense:
    def __init__(self, ranking: list[tuple[str, float]], *, fail: bool = False) -> None:
        self.ranking = ranking
        self.fail = fail

    def rank(self, query: str, allowed: object = None) -> list[tuple[str, float]]:
        if self.fail:
            raise RuntimeError("embedding backend unavailable")
        return [(name, score) for name, score in self.ranking if allowed is None or name in allowed]  # type: ignore[operator]


def test_hybrid_fuses_dense_and_lexical_rankings() -> None:
    dense = _FixedDense([("convert_currency", 0.9), ("get_weather", 0.5)])
    index = build_index(CATALOG, dense=dense)
    result = index.search("how many euros is 100 dollars", mode="hybrid")
    assert result.mode == "hybrid"
    assert "convert_currency" in [hit.name for hit in result.hits]
    assert "convert_currency" not in names("how many euros is 100 dollars")


def test_hybrid_keeps_exact_name_first_and_respects_allowed() -> None:
    dense = _FixedDense([("convert_currency", 0.9), ("send_email", 0.8)])
    index = build_index(CATALOG, dense=dense)
    assert index.search("get_weather", mode="hybrid").hits[0].name == "get_weather"
    result = index.search("money", mode="hybrid", allowed={"send_email"})
    assert [hit.name for hit in result.hits] == ["send_email"]


def test_hybrid_falls_back_to_lexical_when_the_dense_ranker_fails(caplog: pytest.LogCaptureFixture) -> None:
    index = build_index(CATALOG, dense=_FixedDense([], fail=True))
    result = index.search("weather", mode="hybrid")
    assert result.mode == "lexical"
    assert result.hits[0].name == "get_weather"
    assert "dense ranking failed" in caplog.text


def test_index_reports_its_catalog_fingerprint() -> None:
    assert INDEX.fingerprint == CATALOG.fingerprint


def test_empty_catalog_searches_cleanly() -> None:
    result = build_index(Catalog()).search("anything")
    assert (result.hits, result.total, result.suggestions) == ((), 0, ())


@pytest.mark.parametrize(
    "query",
    [
        "send a message",
        "list the open pull requests of the github repository and send an email",
        "please use `send_email` and list_channels for the weather in Paris",
        "send_email",
        "zzz qqq",
    ],
)
@pytest.mark.parametrize("allowed", [None, {"send_message", "send_email", "get_weather", "list_channels"}])
def test_a_lexical_result_says_which_tools_a_search_at_any_limit_lists(query: str, allowed: set[str] | None) -> None:
    deepest = INDEX.search(query, limit=50, allowed=allowed)
    for limit in (1, 2, 5):
        result = INDEX.search(query, limit=limit, allowed=allowed)
        assert result.listed is not None
        assert [tool.name for tool in CATALOG if tool.name in result.listed] == sorted(
            (hit.name for hit in deepest.hits), key=[tool.name for tool in CATALOG].index
        )
        assert deepest.hits[: len(result.hits)] == result.hits


def test_every_engine_answer_and_hit_is_whole_and_equal_to_one_built_from_its_fields() -> None:
    # an engine's answer and its hits are built without their __init__: each must still hold every field (an unset
    # slot raises), judged or not
    judged = build_searcher(ScoutSettings(), CATALOG).search("send a slack message to the channel", limit=4)
    plain = INDEX.search("send a slack message to the channel", limit=4)
    for result, has_confidence in ((judged, True), (plain, False)):
        assert len(result.hits) > 1
        whole = {field.name: getattr(result, field.name) for field in dataclasses.fields(SearchResult)}
        assert type(result) is SearchResult and result == SearchResult(**whole)
        assert (whole["candidates"] is None) == has_confidence and "send_message" in whole["listed"]
        for hit in result.hits:
            fields = {field.name: getattr(hit, field.name) for field in dataclasses.fields(SearchHit)}
            assert type(hit) is SearchHit and hit == SearchHit(**fields)
            assert (fields["confidence"] is not None) == has_confidence and fields["namespace"] in (None, "slack")


def test_a_request_s_terms_and_its_unexpanded_query_are_whole_and_equal_to_ones_built_from_their_fields() -> None:
    # both are built without their __init__: each must hold every field, the query's as the defaults give them
    from toolscout.search._expand import ExpandedQuery, unexpanded
    from toolscout.search._lexical import QueryTerms

    terms = INDEX._lexical.query_terms("send a chat message weathr")
    own = {field.name: getattr(terms, field.name) for field in dataclasses.fields(QueryTerms)}
    assert terms == QueryTerms(**own) and own["unknown"] == ("weathr",) and len(own["weights"]) > len(own["words"])
    query = unexpanded("send a chat message weathr", terms)
    fields = {field.name: getattr(query, field.name) for field in dataclasses.fields(ExpandedQuery)}
    assert query == ExpandedQuery(text="send a chat message weathr", terms=terms) == ExpandedQuery(**fields)


@pytest.mark.parametrize("query", ["get_weather", "get_weather forecast", "weather forecast for Paris"])
def test_a_request_searched_again_at_any_depth_answers_as_a_fresh_index_does(query: str) -> None:
    # an index keeps its latest requests' analyses for the next search of the same request (a deeper one): a search
    # that zeroes the named tool's score must not write into the kept scores
    index = build_index(CATALOG)
    first = [index.search(query, limit=limit) for limit in (1, 3, 10, 3, 1)]
    fresh = [build_index(CATALOG).search(query, limit=limit) for limit in (1, 3, 10, 3, 1)]
    assert [(r.hits, r.total, r.suggestions) for r in first] == [(r.hits, r.total, r.suggestions) for r in fresh]
    assert first[0].hits[0].name in {"get_weather", "get_forecast"} and first[2].total >= 2
