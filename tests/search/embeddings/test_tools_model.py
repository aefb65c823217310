"""The packaged tool-retrieval model: the file toolscout ships, and the recall it must keep."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
from importlib import resources
from pathlib import Path

import pytest

from tests.conftest import require
from toolscout import Catalog
from toolscout.data import sample_catalog_path, sample_queries_path
from toolscout.search._evaluation import summarize
from toolscout.search.embeddings import EmbeddingSettings
from toolscout.search.embeddings._internal import DenseRanker, get_embedder, resolve_backend

require(importlib.util.find_spec("onnxruntime") is not None, "the ONNX embedder needs toolscout[semantic]")
onnx = importlib.import_module("toolscout.search.embeddings._onnx")

SAMPLE_R5_FLOOR = 0.72
"""Dense R@5 of the packaged model on the sample requests must stay at or above this.

Measured 0.747; the plain all-MiniLM-L6-v2 gets 0.703 (``bench/model_compare.py``), so it would fail here.
"""


def test_the_packaged_model_file_is_the_pinned_int8_model() -> None:
    path = onnx.TOOLS_MODEL.locate()

    assert path.parent == Path(str(resources.files("toolscout.data"))) / "models"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == onnx.TOOLS_MODEL.sha256
    assert path.stat().st_size <= 30_000_000


@pytest.mark.slow
def test_auto_runs_the_tool_retrieval_model_and_names_it(tmp_path: Path) -> None:
    assert resolve_backend(EmbeddingSettings()) == "onnx"
    embedder = get_embedder("onnx", EmbeddingSettings(threads=1, cache_dir=tmp_path))

    assert embedder.model_id.startswith("toolscout-minilm-tools-onnx-int8-dynamic:")
    assert get_embedder("onnx-minilm", EmbeddingSettings(threads=1, cache_dir=tmp_path)).model_id.startswith(
        "all-MiniLM-L6-v2-onnx-int8-dynamic:"
    )


def test_a_damaged_packaged_model_is_refused_naming_the_checksum(tmp_path: Path) -> None:
    damaged = tmp_path / "model.onnx"
    data = bytearray(onnx.TOOLS_MODEL.locate().read_bytes())
    data[len(data) // 2] ^= 0xFF
    damaged.write_bytes(bytes(data))
    packaged = onnx.PackagedModel(onnx.TOOLS_MODEL.name, onnx.TOOLS_MODEL.sha256, lambda: damaged)

    with pytest.raises(onnx.EmbeddingError, match=f"expected {onnx.TOOLS_MODEL.sha256}"):
        onnx.OnnxMiniLMEmbedder(packaged=packaged, threads=1, cache_dir=tmp_path)


@pytest.mark.slow
def test_the_packaged_model_keeps_its_recall_on_the_sample_requests(tmp_path: Path) -> None:
    catalog = Catalog.from_file(sample_catalog_path())
    rows = [json.loads(line) for line in sample_queries_path().read_text(encoding="utf-8").splitlines() if line]
    rows = [row for row in rows if row["gold"]]
    ranker = DenseRanker(catalog, get_embedder("onnx", EmbeddingSettings(threads=1, cache_dir=tmp_path)))

    rankings = [[name for name, _ in ranker.rank(row["query"], limit=5)] for row in rows]
    report = summarize(rankings, [row["gold"] for row in rows], ks=(1, 5))

    assert len(rows) > 80
    assert report.recall[5] >= SAMPLE_R5_FLOOR, f"dense R@5 {report.recall[5]:.3f} fell below {SAMPLE_R5_FLOOR}"
