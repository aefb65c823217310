from __future__ import annotations

import hashlib
import logging
import re
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from toolscout import Catalog, ToolSpec
from toolscout.search._hybrid import HybridFusion
from toolscout.search._internal import build_index
from toolscout.search._semantic import build_hybrid_index
from toolscout.search.embeddings import EmbeddingSettings
from toolscout.search.embeddings._base import EmbeddingError
from toolscout.search.embeddings._internal import DenseRanker, shared_embedder

CATALOG = Catalog(
    [
        ToolSpec(name="create_flow", description="Create a new flow from a template."),
        ToolSpec(name="delete_flow", description="Remove a flow by its id. This cannot be undone."),
        ToolSpec(name="list_flows", description="List the flows in a project."),
        ToolSpec(name="run_flow", description="Start a run of a flow."),
        ToolSpec(name="get_weather", description="Current weather for a city."),
        ToolSpec(name="send_email", description="Send an email message to a recipient."),
        ToolSpec(name="archive_project", description="Archive a project so it becomes read-only."),
    ]
)

# Words that mean the same thing share one dimension; every other word gets a hashed one.
_CONCEPTS = {
    word: dim
    for dim, group in enumerate(
        [
            {"delete", "erase", "remove", "wipe"},
            {"flow", "flows", "workflow", "pipeline"},
            {"weather", "forecast", "rain"},
            {"email", "mail", "message"},
        ]
    )
    for word in group
}


class ConceptEmbedder:
    """A deterministic embedder that knows a few synonyms; records every call."""

    model_id = "test/concepts"

    def __init__(self) -> None:
        self.document_calls: list[list[str]] = []

    def embed_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.document_calls.append(list(texts))
        return np.stack([self._vector(text) for text in texts])

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        return self._vector(text)

    def _vector(self, text: str) -> npt.NDArray[np.float32]:
        vector = np.zeros(1024, dtype=np.float32)
        for word in re.findall(r"[a-z]+", text.lower()):
            dim = _CONCEPTS.get(word, 4 + int(hashlib.sha256(word.encode()).hexdigest(), 16) % 1019)
            vector[dim] += 3.0 if word in _CONCEPTS else 0.5
        vector[1023] += 0.01
        return vector / np.linalg.norm(vector)


class BrokenEmbedder:
    """An embedding backend that is down."""

    model_id = "test/broken"

    def __init__(self, *, documents_work: bool) -> None:
        self.documents_work = documents_work

    def embed_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if self.documents_work:
            return ConceptEmbedder().embed_documents(texts)
        raise EmbeddingError("embedding endpoint http://127.0.0.1:9/v1/embeddings is unreachable")

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        raise EmbeddingError("embedding endpoint http://127.0.0.1:9/v1/embeddings is unreachable")


def test_blend_is_a_convex_combination_and_unlisted_tools_get_the_lowest_listed_cosine() -> None:
    fuse = HybridFusion(lexical_weight=0.6)

    fused = fuse([("a", 1.0), ("b", 0.5)], [("b", 0.9), ("c", 0.8)])

    assert [name for name, _ in fused] == ["a", "b", "c"]
    assert [score for _, score in fused] == pytest.approx([0.6 + 0.4 * 0.8, 0.6 * 0.5 + 0.4 * 0.9, 0.4 * 0.8])


def test_reciprocal_rank_fusion_weights_each_ranking_by_its_rank() -> None:
    fuse = HybridFusion(method="rrf", rrf_k=60.0, lexical_weight=0.5)

    fused = fuse([("a", 1.0), ("b", 0.5)], [("b", 0.9), ("c", 0.8)])

    assert [name for name, _ in fused] == ["b", "a", "c"]
    assert [score for _, score in fused] == pytest.approx([0.5 / 62 + 0.5 / 61, 0.5 / 61, 0.5 / 62])


def test_dense_only_tools_need_the_similarity_floor_only_when_lexical_found_nothing() -> None:
    fuse = HybridFusion(similarity_floor=0.35)
    dense = [("x", 0.5), ("y", 0.2)]

    assert [name for name, _ in fuse([], dense)] == ["x"]
    assert [name for name, _ in fuse([("z", 0.9)], dense)] == ["z", "x", "y"]
    assert fuse([], [("y", 0.2)]) == []
    assert fuse([], []) == []


def test_fusion_keeps_every_relevant_tool_and_ties_sort_by_name() -> None:
    fuse = HybridFusion(lexical_weight=1.0)

    fused = fuse([("b", 1.0), ("a", 1.0), ("c", 0.49)], [])

    assert fused == [("a", 1.0), ("b", 1.0), ("c", 0.49)]


def test_the_lexical_weight_follows_the_requests_share_of_english_words() -> None:
    fuse = HybridFusion(lexical_weight=0.5, other_language_weight=0.7)

    assert fuse.for_request("send a message to the team channel") is fuse
    assert fuse.for_request("发送消息到团队频道").lexical_weight == pytest.approx(0.7)
    assert fuse.for_request("envía un mensaje al canal del equipo").lexical_weight == pytest.approx(0.7)
    mixed = fuse.for_request("发送消息到 slack channel").lexical_weight
    assert 0.5 < mixed < 0.7
    assert fuse.for_request("发送消息到团队频道").method == fuse.method  # only the weight changes
    same = HybridFusion(lexical_weight=0.6, other_language_weight=0.6)
    assert same.for_request("发送消息") is same


class RecordingFusion:
    """A request-aware fusion that ranks lexically and remembers which requests it was asked for."""

    def __init__(self) -> None:
        self.requests: list[str] = []

    def for_request(self, query: str) -> HybridFusion:
        self.requests.append(query)
        return HybridFusion(lexical_weight=1.0)

    def __call__(
        self, lexical: Sequence[tuple[str, float]], dense: Sequence[tuple[str, float]]
    ) -> list[tuple[str, float]]:
        raise AssertionError("the index asks for_request first")


def test_the_index_asks_a_request_aware_fusion_for_each_requests_fusion() -> None:
    fusion = RecordingFusion()
    index = build_index(CATALOG, dense=DenseRanker(CATALOG, ConceptEmbedder()), fuse=fusion)

    hits = index.search("remove a flow", mode="hybrid").hits

    assert fusion.requests == ["remove a flow"]
    assert hits[0].name == "delete_flow"


def test_a_paraphrase_lexical_search_misses_is_found_by_hybrid(tmp_path: Path) -> None:
    index = build_hybrid_index(CATALOG, embedder=ConceptEmbedder(), cache_dir=tmp_path)

    lexical = index.search("permanently wipe a workflow")
    hybrid = index.search("permanently wipe a workflow", mode="hybrid")

    assert lexical.hits == ()
    assert hybrid.mode == "hybrid"
    assert hybrid.hits[0].name == "delete_flow"


def test_hybrid_keeps_the_exact_name_first(tmp_path: Path) -> None:
    index = build_hybrid_index(CATALOG, embedder=ConceptEmbedder(), cache_dir=tmp_path)

    result = index.search("`run_flow` wipe a workflow", mode="hybrid")

    assert result.hits[0].name == "run_flow"


def test_hybrid_returns_no_hits_when_nothing_is_relevant(tmp_path: Path) -> None:
    index = build_hybrid_index(CATALOG, embedder=ConceptEmbedder(), cache_dir=tmp_path)

    result = index.search("bake a chocolate cake", mode="hybrid")

    assert result.hits == ()
    assert result.total == 0
    assert result.suggestions


@pytest.mark.parametrize("query", ["wipe a workflow", "delete_flow", "weather", "send mail", "archive", "xyz"])
@pytest.mark.parametrize("allowed", [set(), {"get_weather"}, {"run_flow", "send_email", "not_a_tool"}])
def test_hybrid_results_never_leave_the_allowed_scope(tmp_path: Path, query: str, allowed: set[str]) -> None:
    index = build_hybrid_index(CATALOG, embedder=ConceptEmbedder(), cache_dir=tmp_path)

    result = index.search(query, mode="hybrid", limit=10, allowed=allowed)

    assert {hit.name for hit in result.hits} <= allowed
    assert set(result.suggestions) <= allowed


def test_an_embedder_failing_at_query_time_falls_back_to_lexical_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    index = build_hybrid_index(CATALOG, embedder=BrokenEmbedder(documents_work=True), cache_dir=tmp_path)

    with caplog.at_level(logging.WARNING, logger="toolscout.search"):
        result = index.search("delete flow", mode="hybrid")

    assert result.mode == "lexical"
    assert result.hits[0].name == "delete_flow"
    assert "dense ranking failed" in caplog.text


def test_an_embedder_failing_at_build_time_falls_back_to_lexical_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="toolscout.search"):
        index = build_hybrid_index(CATALOG, embedder=BrokenEmbedder(documents_work=False), cache_dir=tmp_path)

    result = index.search("delete flow", mode="hybrid")

    assert result.mode == "lexical"
    assert result.hits[0].name == "delete_flow"
    assert "hybrid queries run lexically" in caplog.text


def test_without_the_semantic_extra_hybrid_runs_lexically_and_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    for module in ("_onnx", "_onnx_int8", "_ort"):
        monkeypatch.delitem(sys.modules, f"toolscout.search.embeddings.{module}", raising=False)
    shared_embedder.cache_clear()

    with caplog.at_level(logging.WARNING, logger="toolscout.search"):
        index = build_hybrid_index(CATALOG, settings=EmbeddingSettings(backend="onnx"), cache_dir=tmp_path)
    shared_embedder.cache_clear()

    assert index.search("delete flow", mode="hybrid").mode == "lexical"
    assert "pip install 'toolscout[semantic]'" in caplog.text


def test_an_unchanged_catalog_is_not_embedded_again_and_a_changed_tool_alone_is(tmp_path: Path) -> None:
    build_hybrid_index(CATALOG, embedder=ConceptEmbedder(), cache_dir=tmp_path)

    unchanged = ConceptEmbedder()
    build_hybrid_index(CATALOG, embedder=unchanged, cache_dir=tmp_path)
    changed = ConceptEmbedder()
    edited = Catalog([*CATALOG.tools[:-1], ToolSpec(name="archive_project", description="Freeze a project.")])
    index = build_hybrid_index(edited, embedder=changed, cache_dir=tmp_path)

    assert unchanged.document_calls == []
    assert changed.document_calls == [["archive project. Freeze a project."]]
    assert index.search("freeze", mode="hybrid").hits[0].name == "archive_project"
