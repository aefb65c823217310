"""The learning replay of ``toolscout eval --history`` and ``--history-log``: use fed as history, the rest measured.

`replay` shuffles the requests (seeded), feeds the first share through the recording path a session takes
(``tool_search`` in a session of its own, then the gold tool's successful call handed to the scout's
`UsageRecorder`, as `ScoutSession.dispatch` hands it), and searches the rest with learning off and on, each
in a fresh session. The rest is split into requests whose gold tool appeared in the history ("seen") and the
others ("never seen"). An activity log's events (`log`) are fed first, through the same recorder path, each
search and successful call in its logged session and at its logged time; a tool a logged call taught counts
as seen.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterable, Mapping, Sequence, Set

from .._scout import ToolScout
from .._settings import LearningSettings, ScoutSettings
from ..catalog import Catalog
from ..catalog._internal import NAMESPACE_SEPARATOR, ToolNames
from ..dispatch import FoundTool, SearchAnswer, ToolOutcome
from ..learning._internal import LearnedRanking, UsageRecorder, learned_search
from ..search import SearchIndex, SearchMode, SearchResult
from ..search._internal import EvalReport, HybridIndex, LabelledQuery, evaluate
from ..search.embeddings._internal import DenseRanker

__all__ = ["REPLAY_SCOPE", "ReplayReport", "feed_history", "replay", "split_history"]

REPLAY_SCOPE = "replay"
"""The learning scope a replay records in (a fresh in-memory store)."""


@dataclasses.dataclass(frozen=True, slots=True)
class ReplayReport:
    """What a replay measured: the future requests, split, with learning off and on."""

    history: int
    """Requests fed as history."""
    reports: Mapping[tuple[str, str], EvalReport]
    """(split, ``off``/``on``) -> the report; split is ``seen``, ``never`` or ``all`` (a split with no request is
    missing)."""
    log_events: int = 0
    """Activity log events read (searches, calls and the rest)."""
    log_calls: int = 0
    """Successful calls of the log that taught a pair (a search of their session, within the window, led to them)."""


def replay(
    catalog: Catalog,
    queries: Sequence[LabelledQuery],
    *,
    settings: ScoutSettings,
    history: float,
    seed: int,
    ks: Sequence[int] = (1, 5, 10),
    mode: SearchMode = "lexical",
    aliases: Mapping[str, str] | None = None,
    log: Iterable[Mapping[str, object]] = (),
) -> ReplayReport:
    """Replay `history` (a share in [0, 1]) of `queries` as learned use, then measure the rest.

    Args:
        catalog: The tools.
        queries: Labelled requests (gold names as `aliases` maps catalog names, else catalog names).
        settings: The search settings (engine, stages); learning is turned on, in memory, for the replay.
        history: The share of requests (after a seeded shuffle) fed as history.
        seed: The shuffle's seed.
        ks: Recall cutoffs.
        mode: The query mode searched with (``hybrid`` waits for the catalog's embeddings first).
        aliases: Catalog name -> the name gold lists use.
        log: Activity log events (``observe``'s `activity_events`), fed before the history.
    """
    past, future = split_history(queries, history=history, seed=seed)
    learning = LearningSettings.model_validate(
        {**settings.learning.model_dump(), "enabled": True, "store": "memory", "scope": REPLAY_SCOPE}
    )
    scout = ToolScout(
        catalog,
        settings=settings.model_copy(update={"mode": "on", "style": "bridge", "learning": learning}),
    )
    scout.wait_for_embeddings()
    events, taught = _feed_log(scout, log)
    feed_history(scout, past, aliases or {})
    usage = scout.usage
    assert usage is not None  # learning is on
    ranking = LearnedRanking(usage.store, learning, refresh_s=0.0)
    index = scout.index()
    dense = index.dense if isinstance(index, HybridIndex) else None
    if dense is not None and future:  # past requests are embedded in the background: wait, as a warm gateway has
        _Learned(scout.searcher(), ranking, dense).search(future[0].query, mode=mode)
        ranking.wait_for_vectors()
    scored = aliases or {}
    seen_tools = {name for item in past for name in item.gold} | {scored.get(name, name) for name in taught}
    splits = {
        "all": future,
        "seen": [item for item in future if seen_tools.intersection(item.gold)],
        "never": [item for item in future if not seen_tools.intersection(item.gold)],
    }
    reports: dict[tuple[str, str], EvalReport] = {}
    for split, items in splits.items():
        if not items:
            continue
        searchers: dict[str, SearchIndex] = {"off": scout.searcher(), "on": _Learned(scout.searcher(), ranking, dense)}
        for state, searcher in searchers.items():
            reports[split, state] = evaluate(catalog, items, build=_built(searcher), ks=ks, mode=mode, aliases=scored)
    return ReplayReport(history=len(past), reports=reports, log_events=events, log_calls=sum(taught.values()))


def split_history(
    queries: Sequence[LabelledQuery], *, history: float, seed: int
) -> tuple[list[LabelledQuery], list[LabelledQuery]]:
    """The replay's (history, future) halves: `queries` shuffled by `seed`, the first `history` share first."""
    order = list(queries)
    random.Random(seed).shuffle(order)
    cut = round(history * len(order))
    return order[:cut], order[cut:]


def _built(searcher: SearchIndex) -> Callable[[Catalog], SearchIndex]:
    return lambda _catalog: searcher


def feed_history(scout: ToolScout, past: Sequence[LabelledQuery], aliases: Mapping[str, str]) -> None:
    """Each past request searched in a session of its own, then its gold tools' successful calls recorded."""
    usage = scout.usage
    assert usage is not None
    names: dict[str, str] = {}
    for tool in scout.catalog:
        names.setdefault(aliases.get(tool.name, tool.name), tool.name)
    search = scout.settings.bridge_names.search
    for number, item in enumerate(past):
        session = f"replay-history-{number}"
        scout.session(session).dispatch_sync(search, {"query": item.query})
        for gold in item.gold:
            name = names.get(gold)
            if name is not None:
                called = ToolOutcome(name=name, requested=name, arguments={}, content="ok")
                usage.save(usage.observe(session, called, tool=True))
    usage.flush()


def _feed_log(scout: ToolScout, log: Iterable[Mapping[str, object]]) -> tuple[int, dict[str, int]]:
    """Feed an activity log's searches and successful calls to a recorder on the scout's store, at their logged times.

    Returns the events read and, per catalog tool, the logged calls that taught a pair. A stateless gateway
    request (session ``http:<principal>:request:<id>``) is credited by its principal, sessionless, as the gateway
    credits it.
    """
    usage = scout.usage
    assert usage is not None
    logged = [0.0]
    recorder = UsageRecorder(usage.store, scope=REPLAY_SCOPE, window_s=usage.window_s, clock=lambda: logged[0])
    names = ToolNames.of(scout.catalog)
    search = scout.settings.bridge_names.search
    events = 0
    taught: dict[str, int] = {}
    for event in log:
        events += 1
        at, session = event.get("time"), event.get("session")
        if (
            not isinstance(at, int | float)
            or isinstance(at, bool)
            or not isinstance(session, str)
            or not event.get("ok")
        ):
            continue
        logged[0] = float(at)
        kind, query, hits = event.get("kind"), event.get("query"), event.get("hits", [])
        outcome: ToolOutcome | None = None
        if kind == "search" and isinstance(query, str) and isinstance(hits, list):
            found = tuple(FoundTool(name=name) for name in (_catalog_name(names, hit) for hit in hits) if name)
            answer = SearchAnswer(query=query, total=len(found), tools=found, hint="")
            outcome = ToolOutcome(name=search, requested=search, arguments={"query": query}, content="", answer=answer)
        elif kind == "call" and (name := _catalog_name(names, event.get("tool"))) is not None:
            outcome = ToolOutcome(name=name, requested=name, arguments={}, content="ok")
        if outcome is None:
            continue
        learning_session, sessionless = _learning_session(session)
        pairs = recorder.observe(learning_session, outcome, tool=outcome.answer is None, sessionless=sessionless)
        if pairs:
            taught[outcome.name] = taught.get(outcome.name, 0) + 1
        recorder.save(pairs)
    recorder.flush()
    return events, taught


def _catalog_name(names: ToolNames, written: object) -> str | None:
    """The one catalog tool a logged name stands for, else None.

    Read with or without its namespace, or under a gateway's upstream namespace (``upstream__name``).
    """
    if not isinstance(written, str):
        return None
    for spelling in (written, written.partition(NAMESPACE_SEPARATOR)[2]):
        found = names.match(spelling) if spelling else None
        if found is not None and spelling in found.names:  # the exact name wins over others in another case
            return spelling
        if found is not None and len(found.names) == 1:
            return found.names[0]
    return None


def _learning_session(session: str) -> tuple[str, bool]:
    """The session the gateway's recorder used for a logged session id, and whether it was sessionless.

    A stateless request's is its principal's, sessionless.
    """
    kind, _, rest = session.partition(":")
    principal, marker, _ = rest.rpartition(":request:")
    sessionless = kind == "http" and bool(marker)
    return (f"principal:{principal}" if sessionless else session), sessionless


class _Learned:
    """A searcher whose every search is learned, each in a fresh session (a future request)."""

    def __init__(self, searcher: SearchIndex, ranking: LearnedRanking, dense: DenseRanker | None) -> None:
        self._searcher = searcher
        self._ranking = ranking
        self._dense = dense
        self._searches = 0

    @property
    def fingerprint(self) -> str:
        return self._searcher.fingerprint

    def search(
        self, query: str, *, limit: int = 5, mode: SearchMode = "lexical", allowed: Set[str] | None = None
    ) -> SearchResult:
        self._searches += 1
        session = f"replay-future-{self._searches}"
        with learned_search(self._ranking, scope=REPLAY_SCOPE, session=session, dense=self._dense):
            return self._searcher.search(query, limit=limit, mode=mode, allowed=allowed)
