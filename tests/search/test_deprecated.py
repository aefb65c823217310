"""A tool that declares itself deprecated ranks below the tool to use instead (issue 37)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolscout import Catalog, ScoutSettings, ToolScout, ToolSpec
from toolscout.search import SearchHit
from toolscout.search._deprecated import demote_deprecated

EVERYDAY = Path(__file__).parents[2] / "bench" / "data" / "everyday_catalog.json"
CATALOG = Catalog(
    [
        ToolSpec(name="fs__read_file", description="Read a file. DEPRECATED: Use read_text_file instead."),
        ToolSpec(name="fs__read_text_file", description="Read a file as text."),
        ToolSpec(name="fs__read_media_file", description="Read an image."),
        ToolSpec(name="fs__old_list", description="List a folder (deprecated)."),
        ToolSpec(name="fs__list", description="List a folder."),
    ]
)


def _hits(*named: tuple[str, float]) -> tuple[SearchHit, ...]:
    return tuple(SearchHit(name=name, score=confidence, confidence=confidence) for name, confidence in named)


def _names(hits: tuple[SearchHit, ...]) -> list[str]:
    return [hit.name for hit in hits]


@pytest.mark.parametrize("mode", ["lexical", "hybrid"])
def test_tool_search_ranks_read_text_file_above_the_deprecated_read_file(mode: str) -> None:
    scout = ToolScout(Catalog.from_file(EVERYDAY), settings=ScoutSettings(search_mode=mode))
    scout.wait_for_embeddings()
    try:
        answer = scout.session("t").dispatch_sync("tool_search", {"query": "read a file from disk"}).content
        names = [tool["name"] for tool in answer["tools"]]
        assert "filesystem__read_text_file" in names
        assert names.index("filesystem__read_text_file") < names.index("filesystem__read_file")
    finally:
        scout.close()


def test_a_deprecated_hit_goes_right_below_its_replacement_keeping_its_confidence() -> None:
    hits = _hits(("fs__read_file", 0.9), ("fs__read_media_file", 0.5), ("fs__read_text_file", 0.4), ("fs__list", 0.3))
    moved = demote_deprecated(hits, CATALOG)
    assert _names(moved) == ["fs__read_media_file", "fs__read_text_file", "fs__read_file", "fs__list"]
    assert moved[2] == hits[0]


def test_without_its_replacement_it_goes_below_the_next_live_hit_at_least_as_confident() -> None:
    hits = _hits(("fs__old_list", 0.6), ("fs__read_file", 0.6), ("fs__read_media_file", 0.5), ("fs__list", 0.6))
    assert _names(demote_deprecated(hits, CATALOG)) == [
        "fs__read_media_file",
        "fs__list",
        "fs__old_list",
        "fs__read_file",
    ]
    less_likely = _hits(("fs__old_list", 0.6), ("fs__list", 0.5))
    assert demote_deprecated(less_likely, CATALOG) == less_likely


def test_hits_without_a_deprecated_tool_or_already_below_come_back_unchanged() -> None:
    live = _hits(("fs__read_media_file", 0.2), ("fs__list", 0.9), ("fs__read_text_file", 0.5))
    assert demote_deprecated(live, CATALOG) == live
    below = _hits(("fs__read_text_file", 0.1), ("fs__read_file", 0.9))
    assert demote_deprecated(below, CATALOG) == below
    assert demote_deprecated(_hits(("not_in_catalog", 0.9), ("fs__list", 0.9)), CATALOG)[0].name == "not_in_catalog"
