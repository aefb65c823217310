"""The learned score: one session's evidence is capped, and the weights file is checked."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from toolscout.learning._fusion import FEATURES, MODES, Evidence, LearnedWeights, features


@pytest.mark.parametrize("mode", MODES)
def test_one_sessions_evidence_raises_a_tools_score_by_at_most_the_session_cap(mode: str) -> None:
    weights = LearnedWeights.shipped()
    grid = (0.0, 0.5, 1.0)
    raised = []
    for lexical, dense, first, missed, confidence in itertools.product(grid, grid, grid, grid, grid):
        one = Evidence(lexical=lexical, dense=dense, votes=max(lexical, dense), first=first, missed=missed)
        hits = [("sure", 0.9), ("tool", confidence)]
        _, bare = features(hits, {})
        _, voted = features(hits, {"tool": one} if one.nearest else {})
        raised.append(float(weights.score(voted, mode)[1] - weights.score(bare, mode)[1]))
    assert max(raised) <= weights.session_cap(mode) + 1e-9
    assert max(raised) > 0.8 * weights.session_cap(mode)  # the cap is tight, not a loose bound


@pytest.mark.parametrize("mode", MODES)
def test_a_hit_the_engine_is_surer_of_by_more_than_the_cap_stays_above_one_sessions_tool(mode: str) -> None:
    weights = LearnedWeights.shipped()
    margin = weights.session_cap(mode) / weights.weights(mode)["confidence"]
    strongest = Evidence(lexical=1.0, dense=0.0, votes=1.0, missed=1.0)
    names, rows = features([("sure", min(1.0, margin + 0.01)), ("tool", 0.0)], {"tool": strongest})
    scores = weights.score(rows, mode)
    assert names == ["sure", "tool"] and scores[0] > scores[1]


ZERO = dict.fromkeys(FEATURES, 0.0)


@pytest.mark.parametrize(
    ("value", "named"),
    [
        ({"near": 0.5, "depth": 20, "modes": {"hybrid": ZERO}}, "modes must name exactly hybrid, lexical"),
        (
            {"near": 0.5, "depth": 20, "modes": {"hybrid": {"confidence": 1.0}, "lexical": ZERO}},
            "modes.hybrid: weights",
        ),
        ({"near": 0, "depth": 20, "modes": {"hybrid": ZERO, "lexical": ZERO}}, "near must be in (0, 1]"),
        ({"near": 0.5, "depth": 0, "modes": {"hybrid": ZERO, "lexical": ZERO}}, "depth must be a positive integer"),
        (
            {"near": 0.5, "depth": 20, "modes": {"hybrid": ZERO, "lexical": {**ZERO, "confidence": -1.0}}},
            "modes.lexical: the confidence and reciprocal_rank weights must not be negative",
        ),
    ],
)
def test_a_malformed_weights_file_is_refused_naming_what_is_wrong(value: dict[str, object], named: str) -> None:
    with pytest.raises(ValueError, match=named.replace("(", r"\(").replace("]", r"\]")):
        LearnedWeights.from_json(value)


@pytest.mark.parametrize("mode", MODES)
def test_without_learned_evidence_the_score_keeps_the_engines_order(mode: str) -> None:
    hits = [(f"t{rank}", 0.9 - 0.1 * rank) for rank in range(6)]
    names, rows = features(hits, {})
    scores = LearnedWeights.shipped().score(rows, mode)
    assert names == [name for name, _ in hits]
    assert np.all(np.diff(scores) < 0)


def test_a_voted_tool_the_score_puts_lower_keeps_its_place_and_never_moves_down() -> None:
    from toolscout import Catalog, ToolSpec
    from toolscout._settings import LearningSettings
    from toolscout.learning._internal import LearnedRanking, MemoryUsageStore
    from toolscout.search import SearchHit, SearchResult

    catalog = Catalog([ToolSpec(name=name, description=f"tool {name}") for name in "abcd"])
    engine = SearchResult(
        query="q",
        mode="hybrid",
        hits=tuple(SearchHit(name=n, score=4.0 - i, confidence=0.5 - i / 100) for i, n in enumerate("abcd")),
        total=4,
    )
    weak = Evidence(dense=1.0, votes=0.01, first=1.0)  # near requests that disagree and that search had served
    evidence = {"b": weak, **{f"x{n}": weak for n in range(6)}}
    ranking = LearnedRanking(MemoryUsageStore(), LearningSettings())
    names, rows = features([(hit.name, hit.confidence or 0.0) for hit in engine.hits], evidence)
    scores = ranking.weights.score(rows, "hybrid")
    assert scores[names.index("b")] < scores[names.index("d")]  # the score alone would put b last
    learned = ranking.apply(engine, evidence, catalog)
    assert [hit.name for hit in learned.hits] == ["a", "b", "c", "d"]
