"""A compound request is searched sentence by sentence too, so each of its tasks reaches the hits."""

from __future__ import annotations

import importlib.util
import random

import pytest

from tests.conftest import require
from toolscout import Catalog, ScoutSettings, ToolScout, ToolSpec
from toolscout.search import SearchHit, SearchPipeline, SearchResult
from toolscout.search._internal import build_index
from toolscout.search._judge import ConfidenceStage
from toolscout.search._parts import _MAY_END, _SENTENCE_END, merge_parts, request_parts
from toolscout.search._pipeline import PartsStage

HAS_SEMANTIC = importlib.util.find_spec("onnxruntime") is not None

GCD_AND_WEATHER = Catalog(
    [
        ToolSpec(name="math_gcd", description="Calculates the greatest common divisor of two numbers."),
        ToolSpec(name="math.gcd", description="Compute the greatest common divisor (GCD) of two integers."),
        ToolSpec(name="calculate_gcd", description="Calculate the greatest common divisor between two integers."),
        ToolSpec(name="number_theory.gcd", description="Find the greatest common divisor of two numbers."),
        ToolSpec(name="gcd", description="Greatest common divisor of two integers."),
        ToolSpec(name="book_restaurant", description="Reserve a table at a restaurant for a party."),
        ToolSpec(name="get_weather", description="Current weather for a city."),
        ToolSpec(name="send_email", description="Send an email to a recipient."),
        ToolSpec(name="create_event", description="Create a calendar event."),
    ]
)
COMPOUND = (
    "Compute the greatest common divisor of the two integers 36 and 48. Then tell me the current weather in Oslo."
)


def hit(name: str, confidence: float) -> SearchHit:
    return SearchHit(name=name, score=1.0, confidence=confidence)


def test_a_request_splits_at_sentence_ends_in_any_script() -> None:
    assert request_parts(COMPOUND, max_parts=6) == [
        "Compute the greatest common divisor of the two integers 36 and 48.",
        "Then tell me the current weather in Oslo.",
    ]
    assert request_parts("计算三十六和四十八的最大公约数。然后告诉我奥斯陆现在的天气", max_parts=6) == [
        "计算三十六和四十八的最大公约数",
        "然后告诉我奥斯陆现在的天气",
    ]
    assert request_parts("Book a room for two nights;\nthen email the receipt to Ana", max_parts=6) == [
        "Book a room for two nights;",
        "then email the receipt to Ana",
    ]


def test_a_single_task_stays_whole() -> None:
    assert request_parts("Convert 3.5 kg to pounds for the U.S.A. market", max_parts=6) == []  # no sentence end
    assert request_parts("Sort these numbers: 34, 2, 56. Thanks!", max_parts=6) == []  # "Thanks!" names no task
    assert request_parts("", max_parts=6) == []


def test_at_most_max_parts_sentences_are_searched() -> None:
    request = " ".join(f"Run the nightly job number {n}." for n in range(40))

    assert len(request_parts(request, max_parts=6)) == 6


def test_each_parts_best_hit_follows_the_whole_requests_best_hit() -> None:
    whole = SearchResult(
        query="q", mode="hybrid", hits=(hit("a", 0.9), hit("a2", 0.5), hit("a3", 0.4), hit("b", 0.2)), total=4
    )

    merged = merge_parts(whole, [hit("a", 0.9), hit("b", 0.8), hit("c", 0.7)], limit=4)

    assert [h.name for h in merged.hits] == ["a", "b", "c", "a2"]
    assert merged.total == 5  # c is new; b was already counted
    assert merge_parts(whole, [hit("a", 0.9)], limit=4) is whole


def test_parts_answer_when_the_whole_request_abstained() -> None:
    whole = SearchResult(query="q", mode="hybrid", hits=(), total=0, suggestions=("x",), abstained=True)

    merged = merge_parts(whole, [hit("b", 0.8)], limit=5)

    assert [h.name for h in merged.hits] == ["b"]
    assert not merged.abstained and merged.suggestions == ()


def test_the_parts_stage_adds_a_confident_sentence_hit_and_not_a_weak_one() -> None:
    request = (
        "Compute the greatest common divisor of the two integers 36 and 48, the largest number dividing both. "
        "Then check the weather in Oslo."
    )
    index, judge = build_index(GCD_AND_WEATHER), ConfidenceStage.from_settings(ScoutSettings())

    def staged(min_confidence: float) -> SearchResult:
        pipeline = SearchPipeline([PartsStage(min_confidence=min_confidence), judge])
        return pipeline.around(index, GCD_AND_WEATHER).search(request, limit=2)

    whole = SearchPipeline([judge]).around(index, GCD_AND_WEATHER).search(request, limit=2)
    strict = staged(1.0)
    split = staged(0.2)

    assert [h.name for h in whole.hits] == ["math.gcd", "gcd"]  # the first task's near-duplicates fill the hits
    assert strict.hits == whole.hits  # no sentence's best tool reached confidence 1.0
    assert [h.name for h in split.hits] == ["math.gcd", "get_weather"]
    assert split.hits[1].confidence is not None and split.hits[1].confidence >= 0.2


@pytest.mark.slow
def test_tool_search_finds_both_tasks_of_a_compound_request() -> None:
    require(HAS_SEMANTIC, "hybrid search needs toolscout[semantic]")

    def names(split: bool) -> list[str]:
        settings = ScoutSettings(mode="on", search_mode="hybrid", search_split_requests=split)
        scout = ToolScout(GCD_AND_WEATHER, settings=settings)
        assert scout.wait_for_embeddings(600)
        content = scout.session("t").dispatch_sync("tool_search", {"query": COMPOUND, "limit": 3}).content
        assert isinstance(content, dict)
        return [str(tool["name"]) for tool in content["tools"]]

    whole, split = names(False), names(True)

    assert "get_weather" not in whole and whole[0].endswith("gcd")  # one task's near-duplicates fill the hits
    assert split[0] == whole[0] and split[1] == "get_weather"


def test_a_request_may_end_a_sentence_exactly_where_the_sentence_end_pattern_matches() -> None:
    rng = random.Random(38)
    alphabet = list("ab .?!;。？！；\n\t\u3000\u00a0x,")
    for _ in range(20000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(14)))
        assert bool(_MAY_END.search(text)) == bool(_SENTENCE_END.search(text)), repr(text)


def test_a_merged_answer_no_longer_says_what_a_deeper_search_lists() -> None:
    """A sentence's tool cut from a merged answer is not among the whole request's tools a deeper search lists."""
    index, judge = build_index(GCD_AND_WEATHER), ConfidenceStage.from_settings(ScoutSettings())
    pipeline = SearchPipeline([PartsStage(min_confidence=0.2), judge]).around(index, GCD_AND_WEATHER)

    merged = pipeline.search(COMPOUND, limit=1)
    single = pipeline.search("Compute the greatest common divisor of the two integers 36 and 48.", limit=1)

    assert "get_weather" in [h.name for h in pipeline.search(COMPOUND, limit=5).hits]  # a sentence's tool, cut at 1
    assert merged.listed is None
    assert single.listed is not None and "math.gcd" in single.listed and "get_weather" not in single.listed
