from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest

from toolscout.search.embeddings._base import Embedder, EmbeddingError
from toolscout.search.embeddings._cache import EmbeddingCache, default_cache_dir


def test_unchanged_texts_are_served_from_disk_without_calling_the_embedder(make_embedder: Any, tmp_path: Path) -> None:
    texts = ["get weather", "send email", "delete flow"]
    first = EmbeddingCache(tmp_path).embed(make_embedder(), texts)

    again = make_embedder()
    second = EmbeddingCache(tmp_path).embed(again, texts)

    assert again.document_calls == []
    np.testing.assert_array_equal(first, second)


def test_only_new_or_changed_texts_are_embedded(make_embedder: Any, tmp_path: Path) -> None:
    EmbeddingCache(tmp_path).embed(make_embedder(), ["get weather", "send email", "delete flow"])

    embedder = make_embedder()
    vectors = EmbeddingCache(tmp_path).embed(embedder, ["get weather", "send an email now", "delete flow", "new"])

    assert embedder.document_calls == [["send an email now", "new"]]
    np.testing.assert_allclose(
        vectors, make_embedder().embed_documents(["get weather", "send an email now", "delete flow", "new"]), rtol=1e-6
    )


def test_each_model_has_its_own_vectors(make_embedder: Any, tmp_path: Path) -> None:
    EmbeddingCache(tmp_path).embed(make_embedder(model_id="model-a"), ["get weather"])

    other = make_embedder(model_id="model-b")
    EmbeddingCache(tmp_path).embed(other, ["get weather"])

    assert other.document_calls == [["get weather"]]


def test_repeated_texts_are_embedded_once(make_embedder: Any, tmp_path: Path) -> None:
    embedder = make_embedder()
    vectors = EmbeddingCache(tmp_path).embed(embedder, ["same", "same", "other"])

    assert embedder.document_calls == [["same", "other"]]
    np.testing.assert_array_equal(vectors[0], vectors[1])


@pytest.mark.parametrize(
    "garbage",
    [
        pytest.param(b"not a zip file", id="not-npz"),
        pytest.param(b"", id="empty"),
        pytest.param(b"PK\x03\x04", id="truncated"),
    ],
)
def test_a_corrupt_cache_file_is_ignored_and_rebuilt(
    make_embedder: Any, tmp_path: Path, garbage: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    cache = EmbeddingCache(tmp_path)
    cache.embed(make_embedder(), ["get weather"])
    cache.path_for("test/word-hash").write_bytes(garbage)

    embedder = make_embedder()
    with caplog.at_level(logging.WARNING, logger="toolscout.search"):
        vectors = cache.embed(embedder, ["get weather"])

    assert embedder.document_calls == [["get weather"]]
    assert vectors.shape == (1, embedder.dim)
    assert "embedding cache" in caplog.text
    rebuilt = make_embedder()
    cache.embed(rebuilt, ["get weather"])
    assert rebuilt.document_calls == []


def test_a_cache_of_another_dimension_is_replaced(make_embedder: Any, tmp_path: Path) -> None:
    EmbeddingCache(tmp_path).embed(make_embedder(dim=8), ["get weather"])

    embedder = make_embedder(dim=16)
    vectors = EmbeddingCache(tmp_path).embed(embedder, ["get weather", "send email"])

    assert vectors.shape == (2, 16)
    assert embedder.document_calls == [["send email"], ["get weather", "send email"]]


def test_an_unwritable_cache_directory_still_returns_vectors(
    make_embedder: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory", encoding="utf-8")

    with caplog.at_level(logging.WARNING, logger="toolscout.search"):
        vectors = EmbeddingCache(blocker).embed(make_embedder(), ["get weather"])

    assert vectors.shape == (1, 256)
    assert "cannot write embedding cache" in caplog.text


def test_old_entries_beyond_the_cap_are_dropped_but_current_ones_kept(make_embedder: Any, tmp_path: Path) -> None:
    EmbeddingCache(tmp_path, max_entries=2).embed(make_embedder(), ["one", "two"])
    EmbeddingCache(tmp_path, max_entries=2).embed(make_embedder(), ["three", "four", "five"])

    embedder = make_embedder()
    EmbeddingCache(tmp_path, max_entries=2).embed(embedder, ["one", "three", "four", "five"])

    assert embedder.document_calls == [["one"]]


def test_default_cache_dir_honours_toolscout_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSCOUT_CACHE_DIR", str(tmp_path / "cache"))

    assert default_cache_dir() == tmp_path / "cache"
    assert EmbeddingCache().directory == tmp_path / "cache" / "embeddings"


def test_default_cache_dir_falls_back_to_the_user_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("TOOLSCOUT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))

    assert default_cache_dir().name == "toolscout"


def test_an_embedder_returning_too_few_vectors_raises_embedding_error(tmp_path: Path) -> None:
    class Short:
        model_id = "test/short"

        def embed_documents(self, texts: list[str]) -> np.ndarray:
            return np.ones((len(texts) - 1, 4), dtype=np.float32)

        def embed_query(self, text: str) -> np.ndarray:
            return np.ones(4, dtype=np.float32)

    with pytest.raises(EmbeddingError):
        EmbeddingCache(tmp_path).embed(cast(Embedder, Short()), ["one", "two"])
