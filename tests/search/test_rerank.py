"""The reranker seam: a registered `Reranker` reorders the top N hits of tool_search, off the event loop,
and a failing or late one leaves the engine's order standing with one warning."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence

import anyio
import pytest

from toolscout import Catalog, ConfigError, ScoutSettings, ToolScout, ToolSpec
from toolscout.search import RerankSettings, register_reranker
from toolscout.search._rerank import _RERANKERS

TOOLS = Catalog(
    [
        ToolSpec(name=f"ticket_{letter}", description=f"Create a support ticket in queue {letter}.")
        for letter in "abcdefgh"
    ]
)
QUERY = "create a support ticket"


class ByName:
    """Deterministic: scores each candidate by its name, last letter first; records what it was given."""

    def __init__(self) -> None:
        self.seen: list[list[str]] = []
        self.threads: set[int] = set()
        self.lock = threading.Lock()

    def rerank(self, query: str, candidates: Sequence[ToolSpec]) -> list[float]:
        with self.lock:
            self.seen.append([tool.name for tool in candidates])
            self.threads.add(threading.get_ident())
        return [float(ord(tool.name[-1])) for tool in candidates]


class Stuck:
    """Never answers until released (after the search it blocks has returned)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.calls = 0

    def rerank(self, query: str, candidates: Sequence[ToolSpec]) -> list[float]:
        self.calls += 1
        assert self.release.wait(60)
        return [0.0] * len(candidates)


class Broken:
    def rerank(self, query: str, candidates: Sequence[ToolSpec]) -> list[float]:
        raise RuntimeError("model file is corrupt")


@pytest.fixture
def rerankers() -> Iterator[dict[str, object]]:
    made: dict[str, object] = {"by-name": ByName(), "stuck": Stuck(), "broken": Broken()}
    for name, reranker in made.items():
        register_reranker(name, lambda settings, reranker=reranker: reranker)  # type: ignore[misc]
    yield made
    for name in made:
        _RERANKERS.pop(name)


def names(scout: ToolScout, limit: int = 5) -> list[str]:
    content = scout.session("s").dispatch_sync("tool_search", {"query": QUERY, "limit": limit}).content
    assert isinstance(content, dict), content
    return [str(tool["name"]) for tool in content["tools"]]


def scout(**rerank: object) -> ToolScout:
    settings = ScoutSettings.from_mapping(
        {"mode": "on", "search_mode": "lexical", "search_top_band": 0, "search_rerank": rerank}
    )
    return ToolScout(TOOLS, settings=settings)


def test_without_a_reranker_the_engine_orders_ties_by_name() -> None:
    assert names(scout()) == ["ticket_a", "ticket_b", "ticket_c", "ticket_d", "ticket_e"]


def test_the_reranker_reorders_the_top_n_and_the_rest_keep_the_engine_order(rerankers: dict[str, object]) -> None:
    reranker = rerankers["by-name"]
    assert isinstance(reranker, ByName)

    found = names(scout(reranker="by-name", top_n=4), limit=6)

    assert reranker.seen == [["ticket_a", "ticket_b", "ticket_c", "ticket_d"]]
    assert found == ["ticket_d", "ticket_c", "ticket_b", "ticket_a", "ticket_e", "ticket_f"]


def test_the_reranker_sees_top_n_candidates_even_when_fewer_hits_are_asked_for(
    rerankers: dict[str, object],
) -> None:
    reranker = rerankers["by-name"]
    assert isinstance(reranker, ByName)

    found = names(scout(reranker="by-name", top_n=8), limit=2)

    assert reranker.seen == [[f"ticket_{letter}" for letter in "abcdefgh"]]
    assert found == ["ticket_h", "ticket_g"]


def test_the_reranker_runs_off_the_event_loop(rerankers: dict[str, object]) -> None:
    reranker = rerankers["by-name"]
    assert isinstance(reranker, ByName)
    session = scout(reranker="by-name", top_n=3).session("s")

    async def search() -> int:
        await session.dispatch("tool_search", {"query": QUERY})
        return threading.get_ident()

    loop_thread = anyio.run(search)

    assert reranker.threads and loop_thread not in reranker.threads


@pytest.mark.parametrize("which", ["stuck", "broken"])
def test_a_late_or_failing_reranker_leaves_the_engine_order_with_one_warning(
    rerankers: dict[str, object], which: str, caplog: pytest.LogCaptureFixture
) -> None:
    searching = scout(reranker=which, top_n=4, budget_ms=50)
    with caplog.at_level(logging.WARNING, logger="toolscout"):
        first, second = names(searching), names(searching)
    stuck = rerankers["stuck"]
    assert isinstance(stuck, Stuck)
    stuck.release.set()

    engine_order = ["ticket_a", "ticket_b", "ticket_c", "ticket_d", "ticket_e"]
    assert first == second == engine_order
    warnings = [record.getMessage() for record in caplog.records if record.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert f"reranker {which!r}" in warnings[0]
    assert ("budget of 50 ms" if which == "stuck" else "model file is corrupt") in warnings[0]


def test_an_unregistered_reranker_is_a_config_error_naming_the_key() -> None:
    with pytest.raises(ConfigError) as caught:
        ScoutSettings.from_mapping({"search_rerank": {"reranker": "colbert"}})

    assert caught.value.key == "tool_search.search_rerank.reranker"
    assert "unknown reranker 'colbert'" in str(caught.value)
    with pytest.raises(ConfigError) as built:
        RerankSettings(top_n=0)
    assert built.value.key == "search_rerank.top_n"
