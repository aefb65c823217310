"""Search as one pipeline: registered query expanders in a configured order, engines chosen from the
registry by ``search_mode`` everywhere, and one top band cut."""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib import resources

import pytest

from toolscout import Catalog, ConfigError, ScoutSettings, ToolScout, ToolSpec
from toolscout.search import (
    EngineOptions,
    ExpandedQuery,
    ExpansionContext,
    IndexBuilder,
    IndexConfig,
    register_engine,
    register_expander,
)
from toolscout.search._engines import _ENGINES
from toolscout.search._expanders import _EXPANDERS
from toolscout.search._internal import DEFAULT_EXPANDERS, build_index

SAMPLE = Catalog.from_file(str(resources.files("toolscout") / "data" / "sample_catalog.json"))
SAMPLE_QUERIES = [
    json.loads(line)["query"]
    for line in (resources.files("toolscout") / "data" / "sample_queries.jsonl").read_text().splitlines()
    if line.strip()
]
DEPLOY = Catalog(
    [
        ToolSpec(name="deploy_app", description="Deploy the application to production."),
        ToolSpec(name="send_email", description="Send an email message."),
    ]
)


class Meaning:
    """Adds the term `to` for the word `word` at `weight` (a domain's own vocabulary)."""

    def __init__(self, context: ExpansionContext, word: str, to: str, weight: float) -> None:
        self._term = context.lexical.term_id(to)
        self._word, self._weight = word, weight

    def rewrite(self, text: str) -> str:
        return text

    def expand(self, query: ExpandedQuery) -> ExpandedQuery:
        if self._term is None or self._word not in query.terms.stems:
            return query
        return query.adding([(self._term, self._weight)])


@pytest.fixture
def expanders() -> Iterator[None]:
    register_expander("ship-strong", lambda context: Meaning(context, "ship", "deploy", 0.9))
    register_expander("ship-weak", lambda context: Meaning(context, "ship", "deploy", 0.1))
    yield
    _EXPANDERS.pop("ship-strong")
    _EXPANDERS.pop("ship-weak")


def score(ranking: ScoutSettings, query: str = "ship it") -> float:
    hits = build_index(DEPLOY, ranking=ranking).search(query).hits
    return hits[0].score if hits else 0.0


def test_the_default_expanders_are_the_five_built_in_stages_in_their_measured_order() -> None:
    assert build_index(DEPLOY).ranking.search_expanders == DEFAULT_EXPANDERS
    assert DEFAULT_EXPANDERS == ("idioms", "function-words", "translations", "synonyms", "corrections")
    assert ScoutSettings().search_expanders == DEFAULT_EXPANDERS


def test_a_registered_expander_adds_its_terms_and_the_first_in_order_sets_the_weight(expanders: None) -> None:
    assert score(ScoutSettings()) == 0.0
    strong_first = score(ScoutSettings(search_expanders=(*DEFAULT_EXPANDERS, "ship-strong", "ship-weak")))
    weak_first = score(ScoutSettings(search_expanders=(*DEFAULT_EXPANDERS, "ship-weak", "ship-strong")))

    assert strong_first > weak_first > 0.0
    assert strong_first == score(ScoutSettings(search_expanders=(*DEFAULT_EXPANDERS, "ship-strong")))


def test_leaving_a_built_in_stage_out_turns_it_off() -> None:
    idiom = "let the team know the build is green"
    notify = Catalog([ToolSpec(name="notify", description="Notify someone.")])
    without = tuple(name for name in DEFAULT_EXPANDERS if name != "idioms")

    assert [hit.name for hit in build_index(notify).search(idiom).hits] == ["notify"]
    assert build_index(notify, ranking=ScoutSettings(search_expanders=without)).search(idiom).hits == ()


def test_tool_search_runs_the_configured_expanders(expanders: None) -> None:
    def first(expanders: list[str]) -> object:
        settings = ScoutSettings.from_mapping({"mode": "on", "search_mode": "lexical", "search_expanders": expanders})
        content = ToolScout(DEPLOY, settings=settings).session("s").dispatch_sync("tool_search", {"query": "ship it"})
        assert isinstance(content.content, dict)
        return [tool["name"] for tool in content.content["tools"]]

    assert first([*DEFAULT_EXPANDERS]) == []
    assert first([*DEFAULT_EXPANDERS, "ship-strong"]) == ["deploy_app"]


@pytest.mark.parametrize("where", ["code", "mapping"])
def test_an_unknown_or_repeated_expander_is_a_config_error_naming_the_key(where: str) -> None:
    for expanders, message in (
        (("idioms", "stemming"), "unknown query expander 'stemming'"),
        (("idioms",) * 2, "once"),
    ):
        with pytest.raises(ConfigError, match=message) as caught:
            if where == "code":
                ScoutSettings(search_expanders=expanders)
            else:
                ScoutSettings.from_mapping({"search_expanders": list(expanders)})
        assert caught.value.key == ("search_expanders" if where == "code" else "tool_search.search_expanders")


def test_an_index_setting_out_of_range_is_a_config_error_naming_the_key_and_the_limit() -> None:
    with pytest.raises(ConfigError, match="must be less than 1") as band:
        ScoutSettings(search_top_band=1.5)
    with pytest.raises(ConfigError, match="must be more than 0|must be greater than 0") as k1:
        IndexConfig(lexical={"k1": 0})  # type: ignore[arg-type]

    assert (band.value.key, k1.value.key) == ("search_top_band", "lexical.k1")


def test_an_index_built_directly_ranks_by_the_defaults_whatever_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    queries = SAMPLE_QUERIES[:20]
    plain = [build_index(SAMPLE).search(query, limit=10) for query in queries]
    monkeypatch.setenv("TOOLSCOUT_SEARCH_TOP_BAND", "0.9")
    monkeypatch.setenv("TOOLSCOUT_SEARCH_MIN_CONFIDENCE", "0.99")
    assert ScoutSettings().search_top_band == 0.9  # the settings read it; a directly built index does not

    assert [build_index(SAMPLE).search(query, limit=10) for query in queries] == plain
    assert [build_index(SAMPLE, ranking=ScoutSettings()).search(query, limit=10) for query in queries] != plain


@pytest.fixture
def reversed_engine() -> Iterator[list[EngineOptions]]:
    made: list[EngineOptions] = []

    class Reversed:
        """An engine that answers every request with the catalog's tools, last first."""

        def __init__(self, catalog: Catalog) -> None:
            self.catalog = catalog

        @property
        def fingerprint(self) -> str:
            return self.catalog.fingerprint

        def search(self, query: str, *, limit: int = 5, mode: str = "lexical", allowed: object = None) -> object:
            from toolscout.search import SearchHit, SearchResult

            names = [tool.name for tool in reversed(self.catalog.tools)]
            hits = tuple(SearchHit(name=name, score=1.0) for name in names[:limit])
            return SearchResult(query=query, mode="lexical", hits=hits, total=len(names))

    def factory(options: EngineOptions) -> IndexBuilder:
        made.append(options)
        return Reversed  # type: ignore[return-value]

    register_engine("reversed", factory)
    yield made
    _ENGINES.pop("reversed")


def test_a_registered_engine_serves_tool_search_through_search_mode(reversed_engine: list[EngineOptions]) -> None:
    settings = ScoutSettings.from_mapping(
        {"mode": "on", "search_mode": "reversed", "search_top_band": 0.5, "search_expanders": ["idioms"]}
    )
    outcome = ToolScout(DEPLOY, settings=settings).session("s").dispatch_sync("tool_search", {"query": "email"})

    assert isinstance(outcome.content, dict)
    assert [tool["name"] for tool in outcome.content["tools"]] == ["send_email", "deploy_app"]
    (options,) = reversed_engine
    assert (options.ranking.search_top_band, options.ranking.search_expanders, options.background) == (
        0.5,
        ("idioms",),
        True,
    )


def test_search_mode_names_the_registered_engines_that_rank_requests(reversed_engine: list[EngineOptions]) -> None:
    for mode in ("vector", "regex"):
        with pytest.raises(ConfigError) as caught:
            ScoutSettings.from_mapping({"search_mode": mode})
        assert caught.value.key == "tool_search.search_mode"
        assert f"unknown search mode {mode!r}; use one of: auto, lexical, hybrid, reversed" in str(caught.value)


@pytest.mark.parametrize("band", [0.0, 0.3, 0.6])
def test_tool_search_hits_are_the_engines_hits_after_one_band_cut(band: float) -> None:
    # Sentence parts off: a compound request's sentences may add their own best tools (tests/search/test_parts.py).
    settings = ScoutSettings(
        mode="on", search_mode="lexical", search_top_band=band, search_default_limit=10, search_split_requests=False
    )
    session = ToolScout(SAMPLE, settings=settings).session("s")
    index = build_index(SAMPLE, ranking=ScoutSettings(search_top_band=band))
    for query in SAMPLE_QUERIES:
        content = session.dispatch_sync("tool_search", {"query": query}).content
        assert isinstance(content, dict)
        result = index.search(query, limit=10)
        assert [tool["name"] for tool in content["tools"]] == [hit.name for hit in result.hits]
        assert content["total"] == result.total, query
