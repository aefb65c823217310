"""The ``learned`` search stage: near past requests vote for their tools, per scope, capped per session."""

from __future__ import annotations

import hashlib
import itertools
import logging
import re
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from tests.learning.conftest import MakeStore
from toolscout import Catalog, ScoutSettings, ToolScout
from toolscout._settings import LearningSettings
from toolscout.data import sample_catalog_path
from toolscout.dispatch import FoundTool, SearchAnswer, ToolOutcome
from toolscout.learning import UsagePair, UsageStore
from toolscout.learning._fusion import Evidence
from toolscout.learning._internal import (
    LearnedRanking,
    MemoryUsageStore,
    SqliteUsageStore,
    UsageBounds,
    learned_search,
)
from toolscout.search import build_searcher
from toolscout.search._background import BackgroundHybrid
from toolscout.search.embeddings import EmbeddingSettings


def create_issue(title: str) -> str:
    """Create an issue in a GitHub repository with a title."""
    return title


def post_message(text: str) -> str:
    """Post a chat message to a Slack channel."""
    return text


def get_weather(city: str) -> str:
    """Get the weather forecast for a city."""
    return city


TOOLS = [create_issue, post_message, get_weather]
REQUEST = "tell the crew the standup moved"
"""No tool's text has these words: unlearned search does not find post_message for it."""


def scout(store: UsageStore | None, **learning: object) -> ToolScout:
    settings = ScoutSettings(
        mode="on",
        style="bridge",
        search_mode="lexical",
        learning=LearningSettings.model_validate({"enabled": store is not None, **learning}),
    )
    return ToolScout(TOOLS, settings=settings, usage_store=store)


def found(
    scout_: ToolScout, session: str, query: str = REQUEST, *, scope: str | None = None
) -> list[tuple[str, float]]:
    outcome = scout_.session(session, learning_scope=scope).dispatch_sync("tool_search", {"query": query})
    return [(hit["name"], hit.get("confidence", 0.0)) for hit in outcome.found]  # type: ignore[misc]


def learn(store: UsageStore, *sessions: str, scope: str = "default", repeats: int = 1) -> None:
    pairs = [
        UsagePair(scope=scope, request=REQUEST, tool="post_message", session=session, at=time.time())
        for session in sessions
        for _ in range(repeats)
    ]
    store.record(pairs)
    time.sleep(0.5)  # past REFRESH_S: the next search reads the store's new version


def names(hits: list[tuple[str, float]]) -> list[str]:
    return [name for name, _ in hits]


def test_a_tool_counts_for_other_sessions_only_after_pairs_from_k_sessions(make_store: MakeStore) -> None:
    store = make_store()
    learned = scout(store, min_sessions=2)
    assert "post_message" not in names(found(learned, "reader"))
    learn(store, "a")
    assert names(found(learned, "a"))[:1] == ["post_message"]  # a session's own pairs always count
    assert "post_message" not in names(found(learned, "reader"))
    learn(store, "b")
    assert names(found(learned, "reader"))[:1] == ["post_message"]


def test_a_thousand_repeats_from_one_session_move_a_tool_no_further_than_one(make_store: MakeStore) -> None:
    store = make_store()
    learned = scout(store)
    learn(store, "a")
    once = found(learned, "reader")
    learn(store, "a", repeats=999)
    again = found(learned, "reader")
    assert names(again) == names(once)
    assert [value for _, value in again] == pytest.approx([value for _, value in once], abs=1e-4)  # recency decays
    (name, confidence), *_ = once
    assert name == "post_message"
    # The cap: a hit the engine is surer of than one session's vote stays above the learned tool.
    sure = "create a github issue"
    unlearned = found(scout(None), "reader", sure)
    store.record([UsagePair(scope="default", request=sure, tool="post_message", session="a", at=time.time())] * 1000)
    time.sleep(0.5)
    assert unlearned[0][0] == "create_issue"
    assert found(learned, "reader", sure)[0] == unlearned[0]


def test_a_thousand_sessionless_requests_of_one_principal_are_one_sessions_vote(make_store: MakeStore) -> None:
    """A client sending no session (the gateway's stateless requests) cannot outvote others by repeating."""
    store = make_store()
    learned = scout(store)
    recorder = learned.usage
    assert recorder is not None

    def repeat(numbers: range) -> None:
        """Each a search listing the tool, then its call: a hit, credited every time (the requests differ only in
        punctuation, so each is as near as the first)."""
        pairs: list[UsagePair] = []
        for number in numbers:
            query = f"{REQUEST} {'.' * (number % 400)}{'!' * (number // 400)}"
            answer = SearchAnswer(query=query, total=1, tools=(FoundTool(name="post_message"),), hint="")
            searched = ToolOutcome(name="tool_search", requested="tool_search", arguments={}, content="", answer=answer)
            called = ToolOutcome(name="post_message", requested="post_message", arguments={}, content="ok")
            recorder.observe("principal:p", searched, tool=False, sessionless=True)
            pairs += recorder.observe("principal:p", called, tool=True, sessionless=True)
        assert len(pairs) == len(numbers) and {pair.session for pair in pairs} == {"principal:p"}
        recorder.save(pairs)
        recorder.flush()
        time.sleep(0.5)  # past REFRESH_S

    repeat(range(1))
    once = found(learned, "reader")
    assert names(once)[:1] == ["post_message"]
    repeat(range(1, 1000))
    again = found(learned, "reader")
    assert names(again) == names(once)
    assert [value for _, value in again] == pytest.approx([value for _, value in once], abs=1e-3)


def test_a_session_repeating_a_request_votes_once_as_recent_as_its_latest_pair(make_store: MakeStore) -> None:
    store = make_store()
    now = time.time()

    def evidence() -> Evidence:  # a fresh ranking: the store as it is now
        ranking = LearnedRanking(store, LearningSettings(), clock=lambda: now)
        return ranking.evidence("default", "reader", REQUEST, None)["post_message"]

    def pair(at: float, **flags: bool) -> UsagePair:
        return UsagePair(scope="default", request=REQUEST, tool="post_message", session="a", at=at, **flags)

    store.record([pair(now - 60 * 86_400.0, first=True)])
    old = evidence()
    store.record([pair(now, missed=True), pair(now - 86_400.0)])
    both = evidence()
    assert old.votes == pytest.approx(0.25)  # two half-lives old
    assert both.votes == pytest.approx(1.0)  # the latest pair, counted once
    assert both.first == pytest.approx(1.0) and both.missed == pytest.approx(1.0)  # every pair's flag counts


def test_another_scope_sees_no_change(make_store: MakeStore) -> None:
    store = make_store()
    learned = scout(store)
    learn(store, "a", "b", "c", scope="team-a", repeats=10)
    assert names(found(learned, "reader", scope="team-a"))[:1] == ["post_message"]
    for query in (REQUEST, "post a message", "weather in Oslo"):
        assert found(learned, "reader", query, scope="team-b") == found(scout(None), "reader", query)


def test_a_malformed_stored_pair_leaves_ranking_unlearned_with_one_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = SqliteUsageStore(tmp_path / "usage.db")
    learned = scout(store)
    learn(store, "a")
    assert names(found(learned, "reader"))[:1] == ["post_message"]
    with sqlite3.connect(tmp_path / "usage.db") as conn:
        conn.execute(
            "INSERT INTO usage_pairs (scope, tool, request, session, at, missed) VALUES "
            "('default', 'post_message', 'x', 's', 'not a time', 0)"
        )
    time.sleep(0.5)
    unlearned = found(scout(None), "reader")
    with caplog.at_level(logging.WARNING, logger="toolscout.learning"):
        for _ in range(3):
            assert found(learned, "reader") == unlearned
            time.sleep(0.5)
    assert len([r for r in caplog.records if "ranking unlearned" in r.getMessage()]) == 1
    store.close()


def test_a_failing_store_leaves_ranking_unlearned_with_one_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = SqliteUsageStore(tmp_path / "usage.db")
    learned = scout(store)
    learn(store, "a")
    store.close()
    time.sleep(0.5)
    with caplog.at_level(logging.WARNING, logger="toolscout.learning"):
        for _ in range(2):
            assert found(learned, "reader") == found(scout(None), "reader")
            time.sleep(0.5)
    assert len([r for r in caplog.records if "ranking unlearned" in r.getMessage()]) == 1


def test_a_pair_recorded_through_one_replica_is_used_by_another(redis_url: str, tmp_path: Path) -> None:
    from toolscout.learning._redis import RedisUsageStore

    prefix = f"replica-{tmp_path.name}"
    one, two = (scout(RedisUsageStore(redis_url, prefix=prefix)) for _ in range(2))
    assert "post_message" not in names(found(two, "reader"))
    session = one.session("writer")
    session.dispatch_sync("tool_search", {"query": REQUEST})
    assert session.dispatch_sync("tool_call", {"name": "post_message", "arguments": {"text": "x"}}).content == "x"
    assert one.usage is not None
    one.usage.flush()
    deadline = time.monotonic() + 5
    while names(found(two, "reader"))[:1] != ["post_message"]:
        assert time.monotonic() < deadline
        time.sleep(0.05)


class SynonymEmbedder:
    """Embeds a text as its words' meanings (a few synonyms share one), recording each query it embeds."""

    model_id = "test/synonyms"
    MEANINGS = {"crew": 0, "team": 0, "folks": 0, "standup": 1, "huddle": 1, "moved": 2, "shifted": 2}

    def __init__(self) -> None:
        self.queries: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return np.stack([self._vector(text) for text in texts])

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        self.queries.append(text)
        return self._vector(text)

    def _vector(self, text: str) -> npt.NDArray[np.float32]:
        vector = np.zeros(64, dtype=np.float32)
        for word in re.findall(r"[a-z]+", text.lower()):
            vector[self.MEANINGS.get(word, 3 + int(hashlib.sha256(word.encode()).hexdigest(), 16) % 60)] += 1.0
        return vector / (np.linalg.norm(vector) or 1.0)


def test_a_hybrid_search_finds_a_reworded_past_request_by_embedding_reusing_the_query_vector(tmp_path: Path) -> None:
    embedder = SynonymEmbedder()
    settings = ScoutSettings(mode="on", style="bridge", search_mode="hybrid", learning=LearningSettings(enabled=True))
    builder = BackgroundHybrid(EmbeddingSettings(cache_dir=tmp_path), embedder=lambda: embedder)
    learned = ToolScout(TOOLS, settings=settings, index_builder=builder)
    assert learned.wait_for_embeddings(60) and learned.search_mode == "hybrid"
    assert learned.usage is not None
    learned.usage.store.record(
        [UsagePair(scope="default", request=REQUEST, tool="post_message", session="a", at=time.time())]
    )
    reworded = "tell the folks the huddle shifted"  # no term in common with REQUEST but "tell" and "the"
    found(learned, "reader", reworded)  # queues the past request for embedding
    deadline = time.monotonic() + 10
    while embedder.queries.count(REQUEST) < 1:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.1)
    embedder.queries.clear()
    again = "tell the team the standup shifted"
    assert names(found(learned, "reader", again))[:1] == ["post_message"]
    assert embedder.queries == [again]  # embedded once: the engine's query vector, reused by the stage
    learned.close()


def test_a_learned_answer_names_its_learned_hits_in_the_activity_log_and_metrics(make_store: MakeStore) -> None:
    from toolscout.observe import ActivityLog
    from toolscout.observe._internal import Metrics

    store = make_store()
    activity, metrics = ActivityLog(), Metrics()
    activity.add_listener(metrics.observe)
    settings = ScoutSettings(mode="on", style="bridge", search_mode="lexical", learning=LearningSettings(enabled=True))
    learned = ToolScout(TOOLS, settings=settings, usage_store=store, activity=activity)
    sure = "create a github issue"
    store.record([UsagePair(scope="team-a", request=sure, tool="create_issue", session="a", at=time.time())])
    learn(store, "a", scope="team-a")
    found(learned, "reader", scope="team-a")  # post_message added by the learned stage
    found(learned, "reader", scope="team-b")  # another scope: the engine's answer
    found(learned, "reader", "weather in Oslo", scope="team-a")  # no near past request
    top = found(learned, "reader", sure, scope="team-a")  # a vote that changes nothing: the engine was surer
    assert top == found(scout(None), "reader", sure)
    events = [event for event in activity.recent() if event.kind == "search"]
    assert [event.learned for event in events] == [("post_message",), (), (), ()]
    assert "toolscout_learned_answers_total 1.0" in metrics.render().decode()
    answer = learned.session("reader", learning_scope="team-a").dispatch_sync("tool_search", {"query": REQUEST})
    assert "learned" not in str(answer.content)  # the model never reads the flag


def test_a_near_request_that_led_elsewhere_never_passes_a_hit_the_engine_is_sure_of(make_store: MakeStore) -> None:
    store = make_store()
    learned = scout(store)
    other = "create a chat post about the login bug for the crew"
    store.record(
        [UsagePair(scope="default", request=other, tool="post_message", session=s, at=time.time()) for s in "abc"]
    )
    time.sleep(0.5)
    request = "create an issue about the login bug"
    unlearned = found(scout(None), "reader", request)
    assert unlearned[0][0] == "create_issue"
    assert names(found(learned, "reader", other))[:1] == ["post_message"]  # the near request itself is learned
    assert found(learned, "reader", request)[: len(unlearned)] == unlearned  # at most added below the engine's


def test_a_learned_search_ranks_as_if_the_engine_were_searched_to_the_fitted_depth() -> None:
    """The stage searches only as deep as asked unless the engine lists a voted tool past that (then to the depth).

    Scopes: one voting for a tool the engine ranks 8th (a deeper search is needed), one for a tool it never lists
    and one it ranks 2nd (it is not), one for all three.
    """
    catalog = Catalog.from_file(sample_catalog_path())
    settings = ScoutSettings(search_mode="lexical", learning=LearningSettings(enabled=True, min_sessions=1))
    plain = build_searcher(settings.model_copy(update={"learning": LearningSettings(enabled=False)}), catalog)
    learned = build_searcher(settings, catalog)
    store = MemoryUsageStore(UsageBounds())
    now = time.time()
    ranking = LearnedRanking(store, settings.learning, clock=lambda: now)
    requests = ["let the team know in #deploys that the build is green", "which PRs are still open in acme/web?"]
    scopes = {"deeper": (7,), "shown or unlisted": (1, None), "all": (7, 1, None)}
    for request in requests:
        deep = [hit.name for hit in plain.search(request, limit=20).hits]
        unlisted = next(tool.name for tool in catalog if tool.name not in deep)
        store.record(
            [
                UsagePair(
                    scope=scope, request=request, tool=unlisted if at is None else deep[at], session="a", at=time.time()
                )
                for scope, places in scopes.items()
                for at in places
            ]
        )
    changed = 0
    for request, limit, scope in itertools.product(requests, (1, 3, 5), scopes):
        with learned_search(ranking, scope=scope, session="a"):
            got = learned.search(request, limit=limit)
        evidence = ranking.evidence(scope, "a", request, None)
        expected = ranking.apply(plain.search(request, limit=20), evidence, catalog, limit=limit)
        assert (got.hits, got.total) == (expected.hits, expected.total), (request, limit, scope)
        changed += got.hits != plain.search(request, limit=limit).hits
    assert changed  # learning moved tools up
