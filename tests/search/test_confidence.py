"""Every hit carries a calibrated confidence; a search abstains when nothing fits, never when something does."""

from __future__ import annotations

import importlib
import importlib.util
import json
from importlib import resources
from pathlib import Path

import pytest

from tests.conftest import require
from toolscout import Catalog, ConfigError, ScoutSettings, ToolScout, ToolSpec
from toolscout._texts import Search
from toolscout.data import sample_catalog_path, sample_queries_path
from toolscout.search import HitEvidence, SearchIndex, SearchPipeline
from toolscout.search._internal import LogisticCalibrator, build_index, get_calibrator
from toolscout.search._judge import ConfidenceStage, Judge
from toolscout.search.embeddings import EmbeddingSettings
from toolscout.search.embeddings._internal import get_embedder, resolve_backend

HAS_SEMANTIC = importlib.util.find_spec("onnxruntime") is not None
onnx_int8 = importlib.import_module("toolscout.search.embeddings._onnx_int8") if HAS_SEMANTIC else None

TERSE = Catalog(
    [
        ToolSpec(name="get_forecast", description="Get the forecast for a location."),
        ToolSpec(name="send_email", description="Send an email."),
        ToolSpec(name="create_event", description="Create a calendar event."),
        ToolSpec(name="list_files", description="List files in a directory."),
        ToolSpec(name="translate_text", description="Translate text."),
    ]
)
OFF_TOPIC = "brew a cup of coffee"


def judged(catalog: Catalog, settings: ScoutSettings | None = None) -> SearchIndex:
    """The built-in engine's index of `catalog` inside the ``confidence`` stage alone."""
    settings = settings or ScoutSettings()
    stage = ConfidenceStage.from_settings(settings)
    return SearchPipeline([stage]).around(build_index(catalog, ranking=settings), catalog)


def search(scout: ToolScout, query: str) -> dict[str, object]:
    content = scout.session("test").dispatch_sync("tool_search", {"query": query}).content
    assert isinstance(content, dict)
    return content


@pytest.fixture(scope="module")
def hybrid_sample() -> ToolScout:
    require(HAS_SEMANTIC, "hybrid search needs toolscout[semantic]")
    scout = ToolScout(Catalog.from_file(sample_catalog_path()), settings=ScoutSettings(mode="on", search_mode="hybrid"))
    assert scout.wait_for_embeddings(600)
    return scout


def test_a_terse_catalogs_one_fitting_tool_is_never_emptied() -> None:
    require(HAS_SEMANTIC, "hybrid search needs toolscout[semantic]")
    scout = ToolScout(TERSE, settings=ScoutSettings(mode="on", search_mode="hybrid"))
    assert scout.wait_for_embeddings(600)

    for request in ("will it rain in Oslo tomorrow", "weather in Oslo"):
        found = search(scout, request)

        tools = found["tools"]
        assert isinstance(tools, list) and tools, found
        assert tools[0]["name"] == "get_forecast"
        assert 0.0 < tools[0]["confidence"] <= 1.0


def test_an_off_topic_request_abstains_with_the_nearest_names_and_says_so(hybrid_sample: ToolScout) -> None:
    found = search(hybrid_sample, OFF_TOPIC)

    assert found["tools"] == []
    assert found["hint"] == Search.NO_FIT
    suggestions = found["suggestions"]
    assert isinstance(suggestions, list) and suggestions
    assert set(suggestions) <= {tool.name for tool in hybrid_sample.catalog}


def test_every_hit_of_a_fitting_request_carries_a_confidence(hybrid_sample: ToolScout) -> None:
    found = search(hybrid_sample, "let the team know in #deploys that the build is green")

    tools = found["tools"]
    assert isinstance(tools, list) and "slack__post_message" in [tool["name"] for tool in tools]
    assert all(0.0 <= tool["confidence"] <= 1.0 for tool in tools)


@pytest.mark.parametrize(
    "request_text",
    [
        "which PRs are still open in acme/web?",  # a relevant sample request
        "track my Amazon package",  # no tool of the sample catalog serves these two
        "book me a flight to Lisbon next Friday",
    ],
)
def test_whether_a_search_answers_does_not_depend_on_how_many_hits_it_asks_for(
    hybrid_sample: ToolScout, request_text: str
) -> None:
    session = hybrid_sample.session("limits")

    def answered(limit: int) -> bool:
        content = session.dispatch_sync("tool_search", {"query": request_text, "limit": limit}).content
        assert isinstance(content, dict)
        return bool(content["tools"])

    assert answered(1) == answered(5) == answered(10)


def test_lexical_search_calibrates_too_and_keeps_a_weak_right_answer() -> None:
    index = judged(Catalog.from_file(sample_catalog_path()))

    fitting = index.search("post a message to the #deploys slack channel", mode="lexical")
    # A request in another language, matched through the lexicon: keyword evidence alone is weak, never emptied.
    foreign = index.search("在 #deploys 频道告诉团队构建已经通过了", mode="lexical")

    assert fitting.hits[0].name == "slack__post_message"
    assert all(hit.confidence is not None and 0.0 <= hit.confidence <= 1.0 for hit in fitting.hits)
    assert "slack__post_message" in [hit.name for hit in foreign.hits]
    assert not foreign.abstained


def test_a_tool_named_in_the_request_is_certain() -> None:
    index = judged(TERSE)

    result = index.search("get_forecast", mode="lexical")

    assert [(hit.name, hit.confidence) for hit in result.hits] == [("get_forecast", 1.0)]


def test_min_confidence_zero_never_abstains_and_the_threshold_comes_from_the_fit() -> None:
    never = judged(Catalog.from_file(sample_catalog_path()), ScoutSettings(search_min_confidence=0.0))
    default = build_index(Catalog.from_file(sample_catalog_path()))

    assert never.search("what's the score of the Arsenal game", mode="lexical").hits
    fitted = json.loads((resources.files("toolscout.search") / "calibration.json").read_text(encoding="utf-8"))
    calibrator = get_calibrator("logistic")
    assert calibrator.threshold(dense=False) == fitted["lexical"]["threshold"] > 0
    assert calibrator.threshold(dense=True) == fitted["hybrid"]["threshold"] > 0
    assert default.ranking.search_min_confidence is None


def test_confidence_grows_with_the_evidence() -> None:
    calibrator = LogisticCalibrator.packaged()
    weak = HitEvidence(lexical=0.05, cosine=0.1, score=0.1, gap=0.0, top_cosine=0.1)
    strong = HitEvidence(lexical=0.8, cosine=0.7, score=0.75, gap=0.3, top_cosine=0.7)

    assert 0.0 <= calibrator.confidence(weak) < calibrator.confidence(strong) <= 1.0


@pytest.mark.slow
def test_the_calibration_was_fitted_for_the_shipped_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped model as it was fitted: its signed-weight int8 build, which every CPU but an x86 one without VNNI
    runs (there the unsigned build runs: its vectors differ slightly, and so does its id)."""
    require(HAS_SEMANTIC, "the shipped model needs toolscout[semantic]")
    fitted = json.loads((resources.files("toolscout.search") / "calibration.json").read_text(encoding="utf-8"))
    monkeypatch.setattr(onnx_int8, "unsigned_weights", lambda: False)

    settings = EmbeddingSettings(cache_dir=tmp_path)
    model = get_embedder(str(resolve_backend(settings)), settings).model_id

    assert fitted["model"] == model, "the packaged model changed: rerun .venv/bin/python bench/calibrate.py fit"


def test_an_unknown_calibrator_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="unknown calibrator 'nope'; use one of: logistic"):
        ScoutSettings.from_mapping({"search_calibrator": "nope"})
    with pytest.raises(ConfigError, match="search_min_confidence"):
        ScoutSettings.from_mapping({"search_min_confidence": 1.5})


class _OneByOne:
    """The packaged calibrator, read one `HitEvidence` at a time (as a calibrator of another package is)."""

    def __init__(self) -> None:
        self._fitted = LogisticCalibrator.packaged()

    def confidence(self, evidence: HitEvidence) -> float:
        return self._fitted.confidence(evidence)

    def threshold(self, *, dense: bool) -> float:
        return self._fitted.threshold(dense=dense)


def test_lexical_confidences_read_off_the_columns_are_those_of_each_hits_own_evidence() -> None:
    catalog = Catalog.from_file(sample_catalog_path())
    index = build_index(catalog)
    columns = SearchPipeline([ConfidenceStage.from_settings(ScoutSettings())]).around(index, catalog)
    one_by_one = SearchPipeline([ConfidenceStage(Judge(_OneByOne(), None))]).around(index, catalog)
    lines = sample_queries_path().read_text(encoding="utf-8").splitlines()
    requests = [json.loads(line)["query"] for line in lines if line]

    answers = [(columns.search(q, limit=10), one_by_one.search(q, limit=10)) for q in requests]

    assert all(fast == slow for fast, slow in answers)
    assert sum(len(fast.hits) for fast, _ in answers) > 5 * len(requests)  # most requests have several hits
