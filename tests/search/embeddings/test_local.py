from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from toolscout import Catalog, ToolSpec
from toolscout.search._semantic import build_hybrid_index
from toolscout.search.embeddings._base import Embedder, EmbeddingError

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


@pytest.fixture(scope="module")
def local() -> Iterator[ModuleType]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        patch.setenv("TRANSFORMERS_OFFLINE", "1")
        yield importlib.import_module("toolscout.search.embeddings._local")


@pytest.fixture(scope="module")
def minilm(local: ModuleType) -> Embedder:
    """The packaged all-MiniLM-L6-v2, loaded once for this module, offline."""
    embedder: Embedder = local.SentenceTransformerEmbedder()
    return embedder


def test_the_packaged_model_loads_offline_and_returns_unit_vectors(minilm: Embedder) -> None:
    documents = minilm.embed_documents(["delete a flow", "current weather"])
    query = minilm.embed_query("remove a workflow")

    assert minilm.model_id == "sentence-transformers/all-MiniLM-L6-v2"
    assert documents.shape == (2, 384)
    assert documents.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(documents, axis=1), 1.0, rtol=1e-5)
    assert float(documents[0] @ query) > float(documents[1] @ query)


def test_a_paraphrase_lexical_search_misses_is_found_with_the_packaged_model(minilm: Embedder, tmp_path: Path) -> None:
    index = build_hybrid_index(CATALOG, embedder=minilm, cache_dir=tmp_path)

    lexical = index.search("permanently wipe out a workflow")
    hybrid = index.search("permanently wipe out a workflow", mode="hybrid")

    assert "delete_flow" not in [hit.name for hit in lexical.hits]
    assert hybrid.mode == "hybrid"
    assert hybrid.hits[0].name == "delete_flow"
    assert index.search("bake a chocolate cake", mode="hybrid").hits == ()


def test_limited_query_threads_give_the_same_vector_and_restore_torchs_setting(
    minilm: Embedder, local: ModuleType
) -> None:
    import torch

    before = torch.get_num_threads()
    unrestricted = local.SentenceTransformerEmbedder(query_threads=None)

    limited = minilm.embed_query("remove a workflow")

    assert torch.get_num_threads() == before
    np.testing.assert_allclose(limited, unrestricted.embed_query("remove a workflow"), atol=1e-5)


def test_a_query_thread_count_below_one_is_a_clear_error(local: ModuleType) -> None:
    with pytest.raises(EmbeddingError, match="query_threads"):
        local.SentenceTransformerEmbedder(query_threads=0)


def test_a_missing_model_directory_is_a_clear_error(local: ModuleType, tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError):
        local.SentenceTransformerEmbedder(tmp_path / "no-such-model")


def test_a_model_id_not_on_disk_is_never_downloaded(local: ModuleType) -> None:
    with pytest.raises(EmbeddingError):
        local.SentenceTransformerEmbedder("toolscout-tests/model-that-is-not-cached")


def test_importing_the_local_backend_without_the_extra_names_the_install_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    monkeypatch.delitem(sys.modules, "toolscout.search.embeddings._local", raising=False)

    with pytest.raises(ImportError) as raised:
        importlib.import_module("toolscout.search.embeddings._local")

    assert "pip install 'toolscout[sentence-transformers]'" in str(raised.value)
