from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolscout import Catalog, ToolSpec
from toolscout.search.embeddings._cache import EmbeddingCache
from toolscout.search.embeddings._dense import DenseRanker, tool_text

CATALOG = Catalog(
    [
        ToolSpec(name="get_weather", description="Current weather for a city."),
        ToolSpec(name="send_email", description="Send an email message to a recipient."),
        ToolSpec(name="delete_flow", description="Delete a flow permanently."),
        ToolSpec(name="list_flows", description="List every flow."),
        ToolSpec(name="github__create_issue", namespace="github", description="Open an issue in a repository."),
    ]
)


@pytest.mark.parametrize(
    ("tool", "text"),
    [
        pytest.param(ToolSpec(name="getHTTPStatus_v2"), "get http status v2", id="name-only-split"),
        pytest.param(
            ToolSpec(
                name="send_email",
                description=" Send mail. ",
                parameters={"type": "object", "properties": {"toAddress": {}, "body": {}}},
            ),
            "send email. Send mail. Parameters: to address, body.",
            id="name-description-parameters",
        ),
        pytest.param(
            ToolSpec(name="create-issue", namespace="git_hub", description="Open an issue."),
            "git hub: create issue. Open an issue.",
            id="namespace-first",
        ),
    ],
)
def test_tool_text_puts_the_name_in_words_first(tool: ToolSpec, text: str) -> None:
    assert tool_text(tool) == text


def test_rank_orders_tools_by_cosine_similarity(make_embedder: Any) -> None:
    ranker = DenseRanker(CATALOG, make_embedder())

    ranked = ranker.rank("delete flow permanently", limit=3)

    assert [name for name, _ in ranked][:2] == ["delete_flow", "list_flows"]
    assert [score for _, score in ranked] == sorted((score for _, score in ranked), reverse=True)
    assert len(ranked) == 3


def test_rank_never_returns_a_tool_outside_allowed(make_embedder: Any) -> None:
    ranker = DenseRanker(CATALOG, make_embedder())
    allowed = {"send_email", "list_flows", "not_in_catalog"}

    ranked = ranker.rank("delete a flow permanently", allowed, limit=10)

    assert [name for name, _ in ranked] == ["list_flows", "send_email"]
    assert ranker.rank("delete a flow", set()) == []


def test_the_filter_is_applied_before_the_limit(make_embedder: Any) -> None:
    ranker = DenseRanker(CATALOG, make_embedder())

    ranked = ranker.rank("flow", {"get_weather", "send_email"}, limit=1)

    assert len(ranked) == 1
    assert ranked[0][0] in {"get_weather", "send_email"}


def test_a_cached_catalog_is_not_embedded_again(make_embedder: Any, tmp_path: Path) -> None:
    DenseRanker(CATALOG, make_embedder(), cache=EmbeddingCache(tmp_path))

    embedder = make_embedder()
    changed = Catalog([*CATALOG.tools[:4], ToolSpec(name="github__create_issue", description="File a bug.")])
    ranker = DenseRanker(changed, embedder, cache=EmbeddingCache(tmp_path))

    assert embedder.document_calls == [[tool_text(changed["github__create_issue"])]]
    assert ranker.fingerprint == changed.fingerprint
    assert ranker.rank("file a bug", limit=1)[0][0] == "github__create_issue"


def test_an_empty_catalog_ranks_nothing_without_embedding(make_embedder: Any) -> None:
    embedder = make_embedder()
    ranker = DenseRanker(Catalog([]), embedder)

    assert ranker.rank("anything") == []
    assert embedder.query_calls == []
