"""The default embedder: the int8 ONNX all-MiniLM-L6-v2 on onnxruntime, checked against the fp32 model."""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import require
from toolscout import Catalog
from toolscout.data import sample_catalog_path
from toolscout.search._engines import get_embedder, resolve_backend
from toolscout.search.embeddings._base import EmbeddingError
from toolscout.search.embeddings._dense import tool_text
from toolscout.search.embeddings._settings import EmbeddingSettings

require(importlib.util.find_spec("onnxruntime") is not None, "the ONNX embedder needs toolscout[semantic]")
onnx = importlib.import_module("toolscout.search.embeddings._onnx")
SAMPLE_TEXTS = [tool_text(tool) for tool in Catalog.from_file(sample_catalog_path())]


@pytest.fixture(scope="module")
def embedder() -> Any:
    return onnx.OnnxMiniLMEmbedder(threads=1)


def test_auto_picks_the_onnx_backend_before_the_torch_one() -> None:
    assert resolve_backend(EmbeddingSettings()) == "onnx"
    assert type(get_embedder("onnx", EmbeddingSettings(threads=2))).__name__ == "OnnxMiniLMEmbedder"


def test_vectors_are_unit_length_and_name_the_int8_space(embedder: Any) -> None:
    documents = embedder.embed_documents(["delete a flow", "current weather in a city"])
    query = embedder.embed_query("remove a workflow")

    assert documents.shape == (2, 384) and documents.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(documents, axis=1), 1.0, rtol=1e-5)
    assert float(documents[0] @ query) > float(documents[1] @ query)
    assert embedder.model_id.startswith("all-MiniLM-L6-v2-onnx-int8:")


def test_a_text_embeds_the_same_whatever_else_is_in_the_batch(embedder: Any) -> None:
    alone = np.stack([embedder.embed_documents([text])[0] for text in SAMPLE_TEXTS[:12]])
    together = embedder.embed_documents(SAMPLE_TEXTS[:12][::-1])[::-1]

    np.testing.assert_array_equal(alone, together)


def test_onnx_vectors_match_the_fp32_model_on_catalog_texts(embedder: Any) -> None:
    if importlib.util.find_spec("sentence_transformers") is None:
        pytest.skip(
            "the fp32 reference needs toolscout[sentence-transformers] (torch); the ONNX model cannot be checked"
        )
    local = importlib.import_module("toolscout.search.embeddings._local")
    reference = local.SentenceTransformerEmbedder()

    cosines = (embedder.embed_documents(SAMPLE_TEXTS) * reference.embed_documents(SAMPLE_TEXTS)).sum(axis=1)

    assert len(SAMPLE_TEXTS) > 100
    assert float(cosines.min()) >= 0.99, f"worst cosine {cosines.min():.4f}"


def test_a_model_file_onnxruntime_cannot_load_is_an_embedding_error(tmp_path: Path) -> None:
    broken = tmp_path / "model.onnx"
    broken.write_bytes(b"not an onnx graph")

    with pytest.raises(EmbeddingError, match="onnxruntime cannot load"):
        onnx.OnnxMiniLMEmbedder(model_path=broken)
    with pytest.raises(EmbeddingError, match="not found"):
        onnx.OnnxMiniLMEmbedder(model_path=tmp_path / "missing.onnx")


def test_an_unreadable_tokenizer_is_an_embedding_error(tmp_path: Path) -> None:
    bad = tmp_path / "tokenizer.json"
    bad.write_text("{}")

    with pytest.raises(EmbeddingError, match="cannot read tokenizer"):
        onnx.OnnxMiniLMEmbedder(tokenizer_path=bad)


def test_threads_default_to_half_the_cpus_and_follow_the_setting() -> None:
    assert 1 <= onnx.default_threads() <= 4
    built: Any = get_embedder("onnx", EmbeddingSettings(threads=3))
    assert built.threads == 3
