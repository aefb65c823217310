"""A search answer agrees with itself: confidences fall down the list, and hits the engine judges wrong are not offered.

Reported on the README's gateway (12 servers, 104 tools): "what time is it in Tokyo" ranked ``convert_time`` first
at confidence 0.327 and ``get_current_time`` second at 0.888; "qwxzzv plorble" answered two hits at confidence up to
0.319.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import require
from toolscout import Catalog, ScoutSettings, ToolScout
from toolscout.search import HitEvidence
from toolscout.search._internal import LogisticCalibrator, build_index
from toolscout.search._judge import ConfidenceStage

HAS_SEMANTIC = importlib.util.find_spec("onnxruntime") is not None
DATA = Path(__file__).parents[2] / "bench" / "data"
EVERYDAY = Catalog.from_file(DATA / "everyday_catalog.json")
PROBE = [json.loads(line) for line in (DATA / "everyday_probe.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def everyday() -> Iterator[ToolScout]:
    require(HAS_SEMANTIC, "hybrid search needs toolscout[semantic]")
    scout = ToolScout(EVERYDAY, settings=ScoutSettings(mode="on", search_mode="hybrid"))
    assert scout.wait_for_embeddings(600)
    yield scout
    scout.close()


def _answer(scout: ToolScout, query: str, limit: int = 5) -> dict[str, object]:
    content = scout.session("order").dispatch_sync("tool_search", {"query": query, "limit": limit}).content
    assert isinstance(content, dict)
    return content


def _falls(values: list[float]) -> bool:
    return all(a >= b for a, b in zip(values, values[1:], strict=False))


def test_confidences_fall_down_every_everyday_answer(everyday: ToolScout) -> None:
    rising = []
    for row in PROBE:
        tools = _answer(everyday, row["query"], limit=10)["tools"]
        assert isinstance(tools, list)
        confidences = [tool["confidence"] for tool in tools]
        if not _falls(confidences):
            rising.append((row["query"], confidences))

    assert rising == []


def test_the_tool_ranked_first_for_the_time_in_tokyo_is_the_most_confident(everyday: ToolScout) -> None:
    tools = _answer(everyday, "what time is it in Tokyo")["tools"]
    assert isinstance(tools, list)

    ranked = {tool["name"]: (at, tool["confidence"]) for at, tool in enumerate(tools)}
    (current_at, current), (convert_at, convert) = ranked["time__get_current_time"], ranked["time__convert_time"]

    assert (current_at < convert_at) == (current > convert) or current == convert


def test_gibberish_reads_unconfident(everyday: ToolScout) -> None:
    tools = _answer(everyday, "qwxzzv plorble")["tools"]
    assert isinstance(tools, list)

    assert all(tool["confidence"] < 0.1 for tool in tools)


def test_lexical_confidences_fall_down_the_list_too() -> None:
    index, stage = build_index(EVERYDAY), ConfidenceStage.from_settings(ScoutSettings())
    for row in PROBE:
        # The engine's answer judged by the stage alone (the pipeline would hand the confidences out by position).
        hits = stage.search(index, row["query"], limit=10, mode="lexical", allowed=None, catalog=EVERYDAY).hits
        assert _falls([hit.confidence or 0.0 for hit in hits]), row["query"]


def test_confidence_never_rises_as_score_and_gap_fall_and_grows_with_the_nearest_tool() -> None:
    calibrator = LogisticCalibrator.packaged()
    first = HitEvidence(lexical=0.2, cosine=0.5, score=0.5, gap=0.2, top_cosine=0.6)
    second = HitEvidence(lexical=0.6, cosine=0.6, score=0.4, gap=-0.25, top_cosine=0.6)
    far = HitEvidence(lexical=0.2, cosine=0.2, score=0.5, gap=0.2, top_cosine=0.2)

    assert calibrator.confidence(first) >= calibrator.confidence(second)
    assert calibrator.confidence(far) < calibrator.confidence(first)


def test_a_calibration_with_a_negative_score_weight_is_refused() -> None:
    fitted: dict[str, object] = {
        "lexical": {"intercept": 0, "score": 1, "gap": 1, "top_cosine": 0, "coverage": 1, "threshold": 0.1},
        "hybrid": {"intercept": 0, "score": -1, "gap": 1, "top_cosine": 1, "coverage": 1, "threshold": 0.1},
    }
    with pytest.raises(ValueError, match="non-negative"):
        LogisticCalibrator(fitted)
