"""tool_search on the hybrid engine: lexical at once, hybrid once embeddings are in, lexical on failure."""

from __future__ import annotations

import importlib.util
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from tests.conftest import require
from toolscout import Catalog, ScoutSettings, ToolScout, ToolSpec
from toolscout.search._background import BackgroundHybrid
from toolscout.search.embeddings import EmbeddingSettings
from toolscout.search.embeddings._base import Embedder
from toolscout.search.embeddings._internal import shared_embedder

require(importlib.util.find_spec("onnxruntime") is not None, "hybrid search needs toolscout[semantic]")

TOOLS = [
    ToolSpec(name="get_weather", description="Current conditions and forecast for a city."),
    ToolSpec(name="send_email", description="Send an email message to a recipient."),
    ToolSpec(name="create_invoice", description="Create an invoice for a customer."),
    ToolSpec(name="list_repos", description="List the repositories of a GitHub organisation."),
]
PARAPHRASE = "bill the client"  # shares no word with any tool; means create_invoice


class Gated:
    """Wraps the real embedder; document embedding waits until `open` is set, and every call is counted."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.open = threading.Event()
        self.entered = threading.Event()
        self.documents = 0

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    def embed_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.entered.set()
        assert self.open.wait(60)
        self.documents += len(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        return self.inner.embed_query(text)


@pytest.fixture(scope="module")
def onnx() -> Embedder:
    return shared_embedder(EmbeddingSettings())


def _names(outcome: Any) -> list[str]:
    return [tool["name"] for tool in outcome.content["tools"]]


def test_tool_search_answers_lexically_while_embedding_then_hybrid(onnx: Embedder, tmp_path: Path) -> None:
    gated = Gated(onnx)
    builder = BackgroundHybrid(EmbeddingSettings(cache_dir=tmp_path), embedder=lambda: gated)
    scout = ToolScout(TOOLS, settings=ScoutSettings(mode="on", search_mode="hybrid"), index_builder=builder)
    session = scout.session("s")

    before = session.dispatch_sync("tool_search", {"query": PARAPHRASE})
    assert before.error is None and _names(before) == []
    assert scout.search_status().mode == "lexical" and scout.search_status().state == "pending"

    gated.open.set()
    assert scout.wait_for_embeddings(60)
    after = session.dispatch_sync("tool_search", {"query": PARAPHRASE})

    assert scout.search_status().mode == "hybrid" and scout.search_status().state == "ready"
    assert _names(after)[0] == "create_invoice"


def test_auto_mode_gives_tool_search_the_hybrid_engine_when_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TOOLSCOUT_SEARCH_MODE", raising=False)
    settings = ScoutSettings(mode="on", embeddings=EmbeddingSettings(cache_dir=tmp_path))
    assert settings.search_mode == "auto"
    scout = ToolScout(TOOLS, settings=settings)

    scout.session("s").dispatch_sync("tool_search", {"query": "weather"})
    assert scout.wait_for_embeddings(120)
    found = scout.session("s").dispatch_sync("tool_search", {"query": PARAPHRASE})

    assert "onnx" in str(scout.search_status().embedder)
    assert _names(found)[0] == "create_invoice"


def test_a_failing_embedder_leaves_search_lexical_with_one_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    broken = tmp_path / "model.onnx"
    broken.write_bytes(b"not an onnx graph")
    settings = ScoutSettings(mode="on", search_mode="hybrid", embeddings=EmbeddingSettings(model=str(broken)))
    scout = ToolScout(TOOLS, settings=settings)

    with caplog.at_level(logging.WARNING, logger="toolscout.search"):
        first = scout.session("s").dispatch_sync("tool_search", {"query": "send an email"})
        assert scout.wait_for_embeddings(60)
        scout.set_tools([*TOOLS, ToolSpec(name="delete_repo", description="Delete a repository.")])
        second = scout.session("s").dispatch_sync("tool_search", {"query": "delete a repository"})
        assert scout.wait_for_embeddings(60)

    assert first.error is None and _names(first)[0] == "send_email"
    assert second.error is None and _names(second)[0] == "delete_repo"
    status = scout.search_status()
    assert (status.mode, status.state) == ("lexical", "failed") and "onnxruntime cannot load" in str(status.error)
    assert sum("embeddings unavailable" in record.getMessage() for record in caplog.records) == 1


def test_a_catalog_embedded_once_is_read_from_the_disk_cache_by_the_next_process(
    onnx: Embedder, tmp_path: Path
) -> None:
    first, second = Gated(onnx), Gated(onnx)
    first.open.set()
    second.open.set()
    catalog = Catalog(TOOLS)

    assert BackgroundHybrid(EmbeddingSettings(cache_dir=tmp_path), embedder=lambda: first)(catalog).wait(60)
    index = BackgroundHybrid(EmbeddingSettings(cache_dir=tmp_path), embedder=lambda: second)(catalog)
    assert index.wait(60)

    assert first.documents == len(TOOLS)
    assert second.documents == 0
    assert index.search(PARAPHRASE, mode="hybrid").hits[0].name == "create_invoice"
    assert list((tmp_path / "embeddings").glob("*.npz"))


def test_a_catalog_superseded_before_its_turn_is_not_embedded(onnx: Embedder, tmp_path: Path) -> None:
    gated = Gated(onnx)
    builder = BackgroundHybrid(EmbeddingSettings(cache_dir=tmp_path), embedder=lambda: gated)

    first = builder(Catalog(TOOLS[:2]))
    assert gated.entered.wait(60)  # the worker is embedding the first catalog
    middle = builder(Catalog(TOOLS[:3]))
    last = builder(Catalog(TOOLS))
    gated.open.set()

    assert first.wait(60) and middle.wait(60) and last.wait(60)
    assert middle.status.state == "skipped" and middle.status.mode == "lexical"
    assert last.status.state == "ready"
    # The first catalog's two tools, then only the last catalog's two new ones (the rest is cached).
    assert gated.documents == len(TOOLS)
