"""A hybrid search abstains when its best hit is a near miss, and keeps a right answer sharing the request's words."""

from __future__ import annotations

import importlib.util

import pytest

from tests.conftest import require
from toolscout import Catalog, ScoutSettings, ToolScout, ToolSpec
from toolscout.data import sample_catalog_path
from toolscout.search._near_miss import NearMissVeto

HAS_SEMANTIC = importlib.util.find_spec("onnxruntime") is not None


def tools_found(scout: ToolScout, query: str) -> list[str]:
    content = scout.session("test").dispatch_sync("tool_search", {"query": query}).content
    assert isinstance(content, dict)
    tools = content["tools"]
    assert isinstance(tools, list)
    return [tool["name"] for tool in tools]


@pytest.fixture(scope="module")
def hybrid_sample() -> ToolScout:
    require(HAS_SEMANTIC, "hybrid search needs toolscout[semantic]")
    scout = ToolScout(Catalog.from_file(sample_catalog_path()), settings=ScoutSettings(mode="on", search_mode="hybrid"))
    assert scout.wait_for_embeddings(600)
    return scout


@pytest.mark.parametrize("request_text", ["find a recipe for vegetarian lasagna", "lock the front door"])
def test_a_request_no_tool_of_the_catalog_serves_abstains(hybrid_sample: ToolScout, request_text: str) -> None:
    assert tools_found(hybrid_sample, request_text) == []


@pytest.mark.parametrize(
    ("request_text", "gold"),
    [
        ("which PRs are still open in acme/web?", "github__list_pull_requests"),
        ("let the team know in #deploys that the build is green", "slack__post_message"),
    ],
)
def test_a_right_answer_is_kept(hybrid_sample: ToolScout, request_text: str, gold: str) -> None:
    assert gold in tools_found(hybrid_sample, request_text)


def test_a_one_tool_catalog_that_is_related_but_cannot_do_the_request_abstains() -> None:
    require(HAS_SEMANTIC, "hybrid search needs toolscout[semantic]")
    circle = ToolSpec(name="circle_area", description="Area of a circle from its radius.")
    scout = ToolScout(Catalog([circle]), settings=ScoutSettings(mode="on", search_mode="hybrid"))
    assert scout.wait_for_embeddings(600)

    assert tools_found(scout, "how many calories are in a banana") == []


def test_the_veto_needs_an_english_request_no_near_tool_and_no_shared_word() -> None:
    veto = NearMissVeto(top_cosine=0.25, overlap=0.2)
    lights = ToolSpec(name="set_lights", description="Turn the lights on or off.")

    assert veto.vetoes("lock the front door", lights, top_cosine=0.1)
    assert not veto.vetoes("lock the front door", lights, top_cosine=0.3)  # a tool is near the request
    assert not veto.vetoes("turn off the lights", lights, top_cosine=0.1)  # the best hit shares its words
    assert not veto.vetoes("cambia a la segunda pestaña", lights, top_cosine=0.1)  # not English
    assert not veto.vetoes("lock the front door", lights, top_cosine=None)  # no embedder ran
