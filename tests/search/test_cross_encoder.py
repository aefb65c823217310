"""The ``cross-encoder`` reranker refuses what it cannot run, naming the setting or file at fault."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.conftest import require
from toolscout import Catalog, ConfigError, ScoutSettings, ToolScout, ToolSpec
from toolscout.search.embeddings import EmbeddingError
from toolscout.search.embeddings._internal import CrossEncoderReranker
from toolscout.search.embeddings._onnx import TOOLS_MODEL

require(
    all(importlib.util.find_spec(name) for name in ("onnxruntime", "tokenizers")),
    "the cross-encoder reranker needs the semantic extra: pip install 'toolscout[semantic]'",
)

TOOLS = Catalog([ToolSpec(name="get_weather", description="Current weather."), ToolSpec(name="ls", description="x")])


def build(**rerank: object) -> ToolScout:
    return ToolScout(TOOLS, settings=ScoutSettings.from_mapping({"search_rerank": rerank}))


def test_without_a_model_file_the_setting_to_fill_is_named() -> None:
    with pytest.raises(ConfigError, match=r"search_rerank\.model") as caught:
        build(reranker="cross-encoder")
    assert caught.value.key == "search_rerank.model"


def test_a_missing_model_file_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.onnx"
    with pytest.raises(EmbeddingError, match="cross-encoder model file not found") as caught:
        build(reranker="cross-encoder", model=str(missing))
    assert str(missing) in str(caught.value)


def test_an_embedding_model_is_refused_as_not_a_cross_encoder() -> None:
    with pytest.raises(EmbeddingError, match=r"is not a cross-encoder: its outputs are \['last_hidden_state'\]"):
        CrossEncoderReranker(TOOLS_MODEL.locate())
