"""Search engines and embedding backends by name, in registries a third party can add to."""

from __future__ import annotations

import importlib.util

import pytest

from toolscout import Catalog, ConfigError, ToolSpec
from toolscout.search import EngineOptions, IndexBuilder, SearchIndex, register_engine
from toolscout.search._engines import _ENGINES
from toolscout.search._internal import build_index, engine_names, get_engine, resolve_search_mode
from toolscout.search.embeddings import EmbeddingSettings
from toolscout.search.embeddings._internal import embedder_names, get_embedder


def test_the_built_in_modes_each_have_an_engine() -> None:
    assert set(engine_names()) >= {"lexical", "regex", "hybrid"}
    catalog = Catalog([ToolSpec(name="get_weather", description="Current weather for a city.")])
    index = get_engine("regex")(catalog)
    assert [hit.name for hit in index.search("weath.r", mode="regex").hits] == ["get_weather"]


def test_an_unknown_mode_or_embedder_is_an_error_listing_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="use one of: lexical, regex, hybrid"):
        get_engine("vector")
    with pytest.raises(ConfigError, match="unknown embedder 'word2vec'"):
        get_embedder("word2vec")


def test_a_registered_engine_is_found_by_its_mode() -> None:
    built: list[int] = []

    def counting(options: EngineOptions) -> IndexBuilder:
        def build(catalog: Catalog) -> SearchIndex:
            built.append(len(catalog))
            return build_index(catalog, config=options.index)

        return build

    register_engine("counting", counting)
    try:
        get_engine("counting")(Catalog([ToolSpec(name="a", description="x")]))
    finally:
        _ENGINES.pop("counting")
    assert built == [1]


def test_auto_search_is_hybrid_exactly_when_a_local_embedder_is_installed() -> None:
    installed = importlib.util.find_spec("onnxruntime") is not None
    assert ("onnx" in embedder_names(installed=True, local=True)) == installed
    assert resolve_search_mode("auto", EmbeddingSettings()) == ("hybrid" if installed else "lexical")
    assert resolve_search_mode("lexical", EmbeddingSettings()) == "lexical"
    assert "openai-compatible" not in embedder_names(local=True)


def test_ties_are_ordered_by_name_whatever_order_the_tools_arrived_in() -> None:
    tools = [ToolSpec(name=f"crm__op_{letter}", description="CRM operation") for letter in "dbeac"]
    forward, backward = build_index(Catalog(tools)), build_index(Catalog(list(reversed(tools))))
    for mode in ("lexical", "regex"):
        query = "crm operation" if mode == "lexical" else "crm__op"
        names = [hit.name for hit in forward.search(query, limit=5, mode=mode).hits]
        assert names == sorted(names)
        assert names == [hit.name for hit in backward.search(query, limit=5, mode=mode).hits]
