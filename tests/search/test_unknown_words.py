"""Hybrid search leans on the embedder when the request's telling English words are in no tool's text."""

from __future__ import annotations

import importlib.util
import random
import re
from pathlib import Path

import pytest

from tests.conftest import require
from tests.search.test_hybrid import CATALOG, ConceptEmbedder
from toolscout import Catalog, ConfigError, ScoutSettings, ToolScout
from toolscout.data import sample_catalog_path
from toolscout.search._index import _PLAIN_WORD, IndexConfig, ToolIndex
from toolscout.search._internal import HybridFusion
from toolscout.search._semantic import build_hybrid_index


def concept_index(tmp_path: Path, *, unknown_word_weight: float = IndexConfig().unknown_word_weight) -> ToolIndex:
    """The hybrid index of the test catalog with the deterministic concept embedder.

    The fusion leans on keywords (lexical weight 0.7), so the embedder decides only when the unknown words count.
    """
    config = IndexConfig(unknown_word_weight=unknown_word_weight)
    fusion = HybridFusion(lexical_weight=0.7)
    return build_hybrid_index(CATALOG, embedder=ConceptEmbedder(), cache_dir=tmp_path, config=config, fusion=fusion)


def test_a_request_whose_telling_words_no_tool_has_is_ranked_by_the_embedder(tmp_path: Path) -> None:
    index = concept_index(tmp_path)
    off = concept_index(tmp_path, unknown_word_weight=0.0)
    query = "will heavy rain spoil my run outside tomorrow"  # only "run" is in a tool's text

    assert off.search(query, mode="hybrid").hits[0].name == "run_flow"
    assert index.search(query, mode="hybrid").hits[0].name == "get_weather"
    assert index.search(query).hits[0].name == "run_flow"  # lexical search is unchanged


@pytest.mark.parametrize(
    "query",
    [
        "run flow_7a/deploy.yaml on staging-02 for @ci_bot in #ops",  # identifiers, paths, handles
        "запусти run flow прямо сейчас",  # Russian words the index does not know
        "ejecuta el run del flow ahora mismo",  # Spanish
        "现在立刻 run 一下这个 flow",  # Chinese
    ],
)
def test_identifiers_and_words_in_other_languages_do_not_count_as_missing_words(tmp_path: Path, query: str) -> None:
    index = concept_index(tmp_path)
    off = concept_index(tmp_path, unknown_word_weight=0.0)

    assert index.search(query, mode="hybrid", limit=10) == off.search(query, mode="hybrid", limit=10)


def test_a_negative_unknown_word_weight_is_a_config_error_naming_the_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        concept_index(tmp_path, unknown_word_weight=-1.0)

    assert caught.value.key == "unknown_word_weight"


@pytest.mark.slow
def test_tool_search_finds_the_tool_for_a_request_in_words_no_description_uses(tmp_path: Path) -> None:
    require(importlib.util.find_spec("onnxruntime") is not None, "hybrid search needs toolscout[semantic]")
    settings = ScoutSettings.from_mapping(
        {"mode": "on", "search_mode": "hybrid", "embeddings": {"cache_dir": str(tmp_path)}}, prefix="toolscout"
    )
    scout = ToolScout(Catalog.from_file(sample_catalog_path()), settings=settings)
    scout.session("s").dispatch_sync("tool_search", {"query": "warm up"})
    assert scout.wait_for_embeddings(120) and scout.search_status().mode == "hybrid"

    def names(query: str) -> list[str]:
        answer = scout.session("s").dispatch_sync("tool_search", {"query": query})
        return [tool["name"] for tool in answer.content["tools"]]

    assert "weather__get_forecast" in names("do I need an umbrella in Lisbon tomorrow?")
    assert "weather__get_air_quality" in names("is the smog in Delhi too bad for a run today?")
    assert "browser__select_option" in names("pick Germany from the country dropdown")


def test_plain_words_are_the_whitespace_separated_tokens_the_plain_word_pattern_matches_whole() -> None:
    plain = re.compile(r"[(\"'“‘]?[^\W\d_]+(?:['’][^\W\d_]+)?[)\"'”’.,!?;:]*")
    rng = random.Random(38)
    alphabet = list("ab Zé日_1'’(\"“‘)”.,!?;:-\t\n\u00a0\u2003\u3000x\x1c\x85\u200b")
    for _ in range(20000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(25)))
        assert _PLAIN_WORD.findall(text) == [token for token in text.split() if plain.fullmatch(token)], repr(text)
