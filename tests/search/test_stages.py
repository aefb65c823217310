"""One searcher for every caller: the registered stages run around any engine, and the CLI searches what
``tool_search`` searches."""

from __future__ import annotations

import json
from collections.abc import Iterator, Set
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolscout import Catalog, ScoutSettings, ToolScout, ToolSpec
from toolscout.cli import main
from toolscout.search import (
    EngineOptions,
    IndexBuilder,
    SearchHit,
    SearchIndex,
    SearchMode,
    SearchPipeline,
    SearchResult,
    build_searcher,
    register_engine,
    register_stage,
)
from toolscout.search._engines import _ENGINES
from toolscout.search._internal import build_index
from toolscout.search._judge import ConfidenceStage
from toolscout.search._pipeline import _STAGES

GCD_AND_WEATHER = Catalog(
    [
        ToolSpec(name="math.gcd", description="Calculate the greatest common divisor of two integers."),
        ToolSpec(name="gcd", description="Compute the greatest common divisor (GCD) of two numbers."),
        ToolSpec(name="get_weather", description="Get the current weather for a city."),
    ]
)
COMPOUND = (
    "Compute the greatest common divisor of the two integers 36 and 48, the largest number dividing both. "
    "Then check the weather in Oslo."
)


class Fixed:
    """An engine that ranks every allowed tool in catalog order, whatever the request."""

    def __init__(self, catalog: Catalog) -> None:
        self._catalog = catalog

    @property
    def fingerprint(self) -> str:
        return self._catalog.fingerprint

    def search(
        self, query: str, *, limit: int = 5, mode: SearchMode = "lexical", allowed: Set[str] | None = None
    ) -> SearchResult:
        names = [tool.name for tool in self._catalog if allowed is None or tool.name in allowed]
        hits = tuple(SearchHit(name=name, score=1.0) for name in names[:limit])
        return SearchResult(query=query, mode="lexical", hits=hits, total=len(names))


class Reverse:
    """A stage that reverses the order of the hits below it."""

    def search(
        self,
        inner: SearchIndex,
        query: str,
        *,
        limit: int,
        mode: SearchMode,
        allowed: Set[str] | None,
        catalog: Catalog,
    ) -> SearchResult:
        result = inner.search(query, limit=limit, mode=mode, allowed=allowed)
        return SearchResult(query=query, mode=result.mode, hits=result.hits[::-1], total=result.total)


@pytest.fixture
def fixed_engine() -> Iterator[None]:
    def factory(options: EngineOptions) -> IndexBuilder:
        return Fixed

    register_engine("test-fixed", factory)
    yield
    _ENGINES.pop("test-fixed")


@pytest.fixture
def reverse_stage() -> Iterator[None]:
    register_stage("test-reverse", lambda settings: Reverse(), before="cut")
    yield
    _STAGES.pop("test-reverse")


def found(scout: ToolScout, query: str, limit: int = 5) -> list[str]:
    content = scout.session("t").dispatch_sync("tool_search", {"query": query, "limit": limit}).content
    assert isinstance(content, dict)
    return [str(tool["name"]) for tool in content["tools"]]


def test_a_registered_engine_gets_the_exact_name_stage_in_tool_search_and_the_cli(
    fixed_engine: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scout = ToolScout(GCD_AND_WEATHER, settings=ScoutSettings(mode="on", search_mode="test-fixed"))
    assert found(scout, "weather in Oslo") == ["math.gcd", "gcd", "get_weather"]
    assert found(scout, "`get_weather`") == ["get_weather"]

    catalog = tmp_path / "tools.json"
    catalog.write_text(json.dumps([{"name": t.name, "description": t.description} for t in GCD_AND_WEATHER]))
    monkeypatch.setenv("TOOLSCOUT_SEARCH_MODE", "test-fixed")
    result = CliRunner().invoke(main, ["search", str(catalog), "`get_weather`", "--json"])
    assert result.exit_code == 0, result.output
    assert [hit["name"] for hit in json.loads(result.stdout)["hits"]] == ["get_weather"]


def test_a_registered_stage_runs_around_every_engine_where_it_is_placed(reverse_stage: None) -> None:
    settings = ScoutSettings(search_mode="lexical")
    searcher = build_searcher(settings, GCD_AND_WEATHER)
    reversed_hits = [hit.name for hit in searcher.search("greatest common divisor", limit=2).hits]
    assert reversed_hits == ["gcd", "math.gcd"]  # reversed inside the cut, so the cut keeps the engine's top two
    scout = ToolScout(GCD_AND_WEATHER, settings=ScoutSettings(mode="on", search_mode="lexical"))
    assert found(scout, "greatest common divisor", limit=2) == reversed_hits


@pytest.mark.parametrize("split", [True, False])
def test_the_cli_splits_a_compound_request_exactly_when_tool_search_does(
    split: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLSCOUT_SEARCH_SPLIT_REQUESTS", str(split).lower())
    scout = ToolScout(
        GCD_AND_WEATHER, settings=ScoutSettings(mode="on", search_mode="lexical", search_split_requests=split)
    )
    catalog = tmp_path / "tools.json"
    catalog.write_text(json.dumps([{"name": t.name, "description": t.description} for t in GCD_AND_WEATHER]))
    result = CliRunner().invoke(main, ["search", str(catalog), COMPOUND, "--mode", "lexical", "--limit", "2", "--json"])
    assert result.exit_code == 0, result.output
    cli = [hit["name"] for hit in json.loads(result.stdout)["hits"]]
    assert cli == found(scout, COMPOUND, limit=2)
    assert ("get_weather" in cli) is split


def test_a_stage_that_reorders_hands_each_position_its_confidence() -> None:
    catalog = Catalog(
        [
            ToolSpec(name="send_email", description="Send an email message to a recipient."),
            ToolSpec(name="read_email", description="Read the email messages in the inbox."),
            ToolSpec(name="delete_email", description="Delete an email message."),
        ]
    )
    engine, judge = build_index(catalog), ConfidenceStage.from_settings(ScoutSettings())
    plain = SearchPipeline([judge]).around(engine, catalog).search("email message", limit=3, mode="lexical")
    staged = SearchPipeline([Reverse(), judge]).around(engine, catalog)

    reordered = staged.search("email message", limit=3, mode="lexical")

    assert len(plain.hits) == 3 and plain.hits[0].confidence != plain.hits[-1].confidence
    assert [hit.name for hit in reordered.hits] == [hit.name for hit in plain.hits][::-1]
    assert [hit.confidence for hit in reordered.hits] == [hit.confidence for hit in plain.hits]
    confidences = [hit.confidence or 0.0 for hit in reordered.hits]
    assert confidences == sorted(confidences, reverse=True)
    assert reordered.hits[0] == SearchHit(
        name=plain.hits[-1].name,
        score=plain.hits[-1].score,
        namespace=plain.hits[-1].namespace,
        confidence=plain.hits[0].confidence,
    )


def test_the_confidence_stage_judges_the_built_in_engines_and_passes_a_registered_engines_answer_as_it_is(
    fixed_engine: None,
) -> None:
    built_in = build_searcher(ScoutSettings(search_mode="lexical", search_min_confidence=0.99), GCD_AND_WEATHER)
    registered = build_searcher(ScoutSettings(search_mode="test-fixed", search_min_confidence=0.99), GCD_AND_WEATHER)

    judged = built_in.search("weather in Oslo", limit=2)
    passed = registered.search("weather in Oslo", limit=2)

    assert "confidence" in list(_STAGES)[list(_STAGES).index("parts") :]  # parts reads the confidences it gives
    assert judged.abstained and judged.hits == () and judged.suggestions[0] == "get_weather"
    relaxed = build_searcher(ScoutSettings(search_mode="lexical"), GCD_AND_WEATHER).search("weather in Oslo", limit=2)
    assert relaxed.hits[0].name == "get_weather" and relaxed.hits[0].confidence is not None
    assert passed == Fixed(GCD_AND_WEATHER).search("weather in Oslo", limit=2)  # no confidences, no abstention
    assert not passed.abstained and all(hit.confidence is None for hit in passed.hits)


class Confidences:
    """A stage that remembers the confidences of the hits it gets from below."""

    seen: list[float | None] = []

    def search(
        self,
        inner: SearchIndex,
        query: str,
        *,
        limit: int,
        mode: SearchMode,
        allowed: Set[str] | None,
        catalog: Catalog,
    ) -> SearchResult:
        result = inner.search(query, limit=limit, mode=mode, allowed=allowed)
        Confidences.seen = [hit.confidence for hit in result.hits]
        return result


def test_a_stage_registered_innermost_sees_judged_hits_and_none_goes_inside_confidence() -> None:
    register_stage("test-innermost", lambda settings: Confidences())
    try:
        assert list(_STAGES)[-2:] == ["test-innermost", "confidence"]
        build_searcher(ScoutSettings(search_mode="lexical"), GCD_AND_WEATHER).search("greatest common divisor")
        assert Confidences.seen and all(confidence is not None for confidence in Confidences.seen)
    finally:
        _STAGES.pop("test-innermost")
    with pytest.raises(ValueError, match="inside 'confidence'"):
        register_stage("test-inside", lambda settings: Confidences(), before="confidence")
    assert "test-inside" not in _STAGES
