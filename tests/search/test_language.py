"""Hybrid search trusts the embedder only for the share of a query written in languages it knows."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.conftest import require
from toolscout import Catalog, ConfigError, ScoutSettings, ToolScout
from toolscout.data import sample_catalog_path
from toolscout.search._language import known_share, word_languages
from toolscout.search.embeddings import EmbeddingSettings


@pytest.mark.parametrize(
    ("query", "languages"),
    [
        ("send a message to slack", ["en"] * 5),
        ("发送消息到 slack 频道", ["zh", "zh", "zh", "en", "zh"]),
        ("отправь сообщение в slack", ["ru", "ru", "ru", "en"]),
        ("envía un mensaje al canal", ["es"] * 5),
        ("error 404", ["en"]),
    ],
)
def test_each_word_gets_the_language_of_its_script_or_of_the_querys_function_words(
    query: str, languages: list[str]
) -> None:
    assert word_languages(query) == languages


def test_japanese_kanji_count_as_japanese_when_the_query_has_kana() -> None:
    assert set(word_languages("スラックにメッセージを送信")) == {"ja"}


def test_the_known_share_is_the_share_of_words_in_the_models_languages() -> None:
    assert known_share("发送消息到 slack 频道", frozenset({"en"})) == pytest.approx(0.2)
    assert known_share("send a message", frozenset({"en"})) == 1.0
    assert known_share("发送消息", None) == 1.0  # a multilingual model
    assert known_share("404", frozenset({"en"})) == 1.0  # nothing to judge by


def test_a_model_knows_every_language_unless_the_settings_name_its_languages() -> None:
    assert EmbeddingSettings().known_languages() is None
    assert EmbeddingSettings(languages=("en", "de")).known_languages() == frozenset({"en", "de"})
    assert EmbeddingSettings(languages=("*",)).known_languages() is None


def test_a_language_code_that_is_not_iso_639_1_is_refused_with_the_key_named() -> None:
    with pytest.raises(ConfigError, match="embeddings.languages"):
        ScoutSettings.from_mapping({"embeddings": {"languages": ["english"]}}, prefix="toolscout")


def test_a_request_in_a_language_the_embedder_does_not_know_ranks_as_lexical_search_does(tmp_path: Path) -> None:
    require(importlib.util.find_spec("onnxruntime") is not None, "hybrid search needs toolscout[semantic]")
    catalog = Catalog.from_file(sample_catalog_path())
    english = EmbeddingSettings(cache_dir=tmp_path, languages=("en",))
    hybrid = ToolScout(catalog, settings=ScoutSettings(mode="on", search_mode="hybrid", embeddings=english))
    lexical = ToolScout(catalog, settings=ScoutSettings(mode="on", search_mode="lexical"))
    hybrid.session("s").dispatch_sync("tool_search", {"query": "warm up"})
    assert hybrid.wait_for_embeddings(120) and hybrid.search_status().mode == "hybrid"

    def names(scout: ToolScout, query: str) -> list[str]:
        answer = scout.session("s").dispatch_sync("tool_search", {"query": query})
        return [tool["name"] for tool in answer.content["tools"]]

    for query in (
        "muestra todas las filas de la base de datos del roadmap con estado In Review",
        "这个日志文件有多大，最后一次修改是什么时候？",
        "明天在里斯本需要带伞吗？",
    ):
        assert names(hybrid, query) == names(lexical, query), query
    assert names(hybrid, "发送消息到 slack 频道")[0] == "slack__post_message"
    assert names(hybrid, "bill the client for the March work")  # English: the embedder still counts
