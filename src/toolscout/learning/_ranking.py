"""The ``learned`` search stage: past requests of the learning scope near this one vote for the tools they led to.

How a search meets its learning scope: the stage is built from settings alone (`register_stage`), so the scope,
the session and the pairs come from a context variable, set by `learned_search` around one search.
`ScoutSession` sets it around every search it resolves (``tool_search``, pre-search), with the scout's
`LearnedRanking` (one per `ToolScout`, over its usage store), the session's learning scope and its learning
session. A search outside it (``toolscout search``, the page, a benchmark's bare searcher) is not learned.

The ranking (`LearnedRanking.apply`):

- **Near.** The scope's distinct past requests are indexed by their search terms (`tokenize`), weighted by
  inverse document frequency over those requests; a past request is near when the cosine of its terms and this
  request's (or, in a hybrid search, of their embeddings) reaches the fitted ``near`` (`LearnedWeights`).
- **Evidence.** A near request votes for each tool it led to, once per distinct session (a session repeating a
  request 1,000 times is one vote), weighed by similarity and recency (half-life `HALF_LIFE_S`). Other sessions'
  votes for a tool count only when at least ``learning.min_sessions`` distinct sessions cast them; the searching
  session's own always count.
- **Score.** Every candidate (the engine's hits to `LearnedWeights.depth`, and every voted tool) gets a score, a
  linear function of the engine's confidence and rank and of the learned evidence: the nearest voting request's
  term and embedding similarity, the votes and their share, how many tools the near requests disagree on, and
  whether the voting searches had listed the tool first (the engine served them already) or not at all (missed).
  The weights (``ranking.json``, one set per engine mode) are fitted by ``bench/learning_fit.py`` on BFCL
  tuning and the tooldata dev split, weighing requests whose tool never appeared in the history ten times (so
  learning does not cost them what it gains on the others).
- **Depth.** The engine is searched as deep as asked, and again to the depth only when it lists a voted tool past
  those hits (`SearchResult.listed`; unknown: searched deep), so a search ranks as if always searched that deep.
- **Order.** The one best-scored voted tool moves up (never down) to just before the first hit scored lower;
  every other hit keeps the engine's order, so a search is learned by at most one place taken. Its confidence
  becomes the larger of the engine's, the learned one (`Evidence.confidence`) and that of the hit it now
  precedes, but no more than the hit above it, so confidences still fall down the list. A tool outside
  ``allowed`` or the catalog is never added; an abstained search answers with a voted tool whose nearest
  request reaches ``learning.min_similarity``.
- **Poisoning cap.** One session is one vote, so its pairs, however many, raise a tool's score by at most
  `LearnedWeights.session_cap` (with the shipped hybrid weights, 1.47: a tool it voted for passes only hits the
  engine gave a confidence under 0.23 more than its own; lexical: 2.91 and 0.44).
- **Seen.** A hit this changed (added, moved up, or made more confident) is marked `SearchHit.learned`; the
  activity log lists those hits of a search (`ActivityEvent.learned`) and ``/metrics`` counts such answers.

Pairs are cached per scope and re-read only when the store's `UsageStore.version` changes, asked at most every
`REFRESH_S` seconds plus the time the last check took (so a pair another replica records is used within about
that, plus the re-read); the search that finds a check due makes it, and concurrent searches use the cached pairs
meanwhile. A store that fails, or holds a value that is not a pair, leaves ranking unlearned with one warning
(until it works again).
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import logging
import math
import queue
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence, Set
from contextvars import ContextVar
from typing import Any

import numpy as np
import numpy.typing as npt

from .._settings import LearningSettings, ScoutSettings
from ..catalog import Catalog
from ..search import SearchHit, SearchIndex, SearchMode, SearchResult, register_stage
from ..search._internal import tokenize
from ..search.embeddings import Embedder
from ..search.embeddings._internal import DenseRanker
from ._base import USE, StoreHealth, UsagePair, UsageStore
from ._fusion import Evidence, LearnedWeights
from ._refresh import ScopeRefresh

__all__ = ["HALF_LIFE_S", "REFRESH_S", "LearnedRanking", "LearnedStage", "learned_search"]

logger = logging.getLogger(__name__)

HALF_LIFE_S = 30 * 86_400.0
"""Seconds after which a session's vote weighs half."""
REFRESH_S = 0.25
"""Seconds between two checks of a scope's store version (each a cheap read: a Redis GET, one SQLite query)."""


_Vote = tuple[str, str, float, bool, bool]
"""A request's votes for a tool from one session: (tool, session, the latest pair's time, any pair first, any missed).

A session's vote weighs its nearest request's similarity times the recency of its latest pair (the largest weight
any of its pairs could give), and a request's pairs share its similarity, so one row per (request, tool, session)
answers as all of its pairs did: a session repeating a request 1,000 times is one row, read once per search."""


class _ScopeIndex:
    """One scope's distinct past requests as unit TF-IDF vectors, an inverted index of them, and their votes."""

    def __init__(self, pairs: Sequence[UsagePair], previous: _ScopeIndex | None = None) -> None:
        """Index `pairs`; a request `previous` (the index this one replaces) held is not tokenized again."""
        votes: dict[str, dict[tuple[str, str], _Vote]] = defaultdict(dict)
        for pair in pairs:
            if not (isinstance(pair.request, str) and isinstance(pair.tool, str) and isinstance(pair.session, str)):
                raise ValueError(f"a stored pair is not text: {pair!r}")
            if isinstance(pair.at, bool) or not isinstance(pair.at, int | float) or not math.isfinite(pair.at):
                raise ValueError(f"a stored pair has no valid time: {pair!r}")
            if pair.request != USE:  # a use no search led to: auto-pin counts it, no request matches it
                held = votes[pair.request]
                key = (pair.tool, pair.session)
                _, _, at, first, missed = held.get(key, (*key, -math.inf, False, False))
                held[key] = (*key, max(at, float(pair.at)), first or pair.first, missed or pair.missed)
        self.votes: tuple[tuple[_Vote, ...], ...] = tuple(tuple(found.values()) for found in votes.values())
        self.requests: tuple[str, ...] = tuple(votes)
        self._dense: tuple[str, int, npt.NDArray[np.intp], npt.NDArray[np.float32]] | None = None
        self.queued: set[str] = set()
        """The embedding models every request here was queued for (`LearnedRanking`'s embedding worker)."""
        known = previous.terms if previous is not None else {}
        terms = [known.get(request) or tuple(dict.fromkeys(tokenize(request))) for request in votes]
        self.terms: dict[str, tuple[str, ...]] = dict(zip(votes, terms, strict=True))
        frequency = Counter(itertools.chain.from_iterable(terms))
        count = len(terms)
        idf = {term: math.log(1.0 + count / df) for term, df in frequency.items()}
        squares = {term: weight**2 for term, weight in idf.items()}
        norms = [math.sqrt(sum(map(squares.__getitem__, found))) or 1.0 for found in terms]
        # Postings in one pass of numpy (one entry per request and term, grouped by term, rows ascending).
        ids = {term: at for at, term in enumerate(idf)}
        lengths = [len(found) for found in terms]
        term_ids = np.fromiter(map(ids.__getitem__, itertools.chain.from_iterable(terms)), np.intp, sum(lengths))
        rows = np.repeat(np.arange(count, dtype=np.intp), lengths)
        weights = np.fromiter(idf.values(), np.float64, len(idf))[term_ids] / np.repeat(np.asarray(norms), lengths)
        grouped = np.argsort(term_ids, kind="stable")
        rows, weights = rows[grouped], weights[grouped]
        ends = np.cumsum(np.bincount(term_ids, minlength=len(ids))).tolist()
        self.postings: dict[str, tuple[float, npt.NDArray[np.intp], npt.NDArray[np.float64]]] = {
            term: (idf[term], rows[start:end], weights[start:end])
            for term, start, end in zip(idf, [0, *ends][:-1], ends, strict=True)
        }
        """Term -> its IDF, the rows of the requests holding it and its weight in each (one look-up per term)."""
        self.size = count

    def similarities(self, query: str) -> npt.NDArray[np.float64] | None:
        """The term cosine of `query` and each past request, by row (None: no term in common with any)."""
        found = [posting for posting in map(self.postings.get, set(tokenize(query))) if posting is not None]
        if not found or not self.size:
            return None
        idfs, held, weights = zip(*found, strict=True)
        norm = math.sqrt(sum(idf**2 for idf in idfs))
        # Each weight times its term's query weight, as `weights * (idf / norm)` term by term, in one product.
        scales = np.repeat([idf / norm for idf in idfs], [len(rows) for rows in held])
        values = np.concatenate(weights) * scales
        return np.asarray(np.bincount(np.concatenate(held), weights=values, minlength=self.size), dtype=np.float64)

    def near_dense(
        self, vector: npt.NDArray[np.float32], model: str, known: dict[str, npt.NDArray[np.float16]], min_cosine: float
    ) -> list[tuple[int, float]]:
        """(row, cosine) of each past request with a vector in `known` at least `min_cosine` alike to `vector`."""
        cached = self._dense
        if cached is None or cached[0] != model or cached[1] != len(known):
            held = [row for row, request in enumerate(self.requests) if request in known]
            vectors = [known[self.requests[row]] for row in held]
            matrix = np.array(vectors, dtype=np.float32) if vectors else np.zeros((0, 0), dtype=np.float32)
            cached = self._dense = (model, len(known), np.asarray(held, dtype=np.intp), matrix)
        _, _, rows, matrix = cached
        if not len(rows) or matrix.shape[1] != vector.shape[0]:
            return []
        cosines = matrix @ vector
        found = np.flatnonzero(cosines >= min_cosine)
        return [(int(rows[i]), float(cosines[i])) for i in found]


class LearnedRanking:
    """One usage store's pairs, cached per scope, and the learned re-ranking of a search (module docstring).

    Args:
        store: Where the pairs are.
        settings: ``min_similarity``, ``min_sessions``.
        refresh_s: Seconds between checks of a scope's store version.
        clock: Seconds since the epoch (tests pass their own).
        health: The store's health, shared with its `UsageRecorder` (`UsageRecorder.health`), so a failing store
            warns once; a read failure never clears it (only the recorder's next successful write does).
    """

    def __init__(
        self,
        store: UsageStore,
        settings: LearningSettings,
        *,
        refresh_s: float = REFRESH_S,
        clock: Callable[[], float] = time.time,
        health: StoreHealth | None = None,
        weights: LearnedWeights | None = None,
    ) -> None:
        self.store = store
        self.min_similarity = settings.min_similarity
        self.min_sessions = settings.min_sessions
        self.weights = weights or LearnedWeights.shipped()
        self._clock = clock
        self._lock = threading.Lock()
        self._health = health or StoreHealth()
        self._indexes: ScopeRefresh[_ScopeIndex | None] = ScopeRefresh(
            store, _ScopeIndex, failed=None, refresh_s=refresh_s, on_failure=self._failed
        )
        self._vectors: dict[str, dict[str, npt.NDArray[np.float16]]] = {}
        self._queued: set[tuple[str, str]] = set()
        self._pending: queue.Queue[tuple[Embedder, str]] = queue.Queue()
        self._worker: threading.Thread | None = None

    def evidence(
        self, scope: str, session: str, query: str, allowed: Set[str] | None, dense: DenseRanker | None = None
    ) -> dict[str, Evidence]:
        """What the scope's past requests near `query` say of each tool they voted for (none on a failure).

        With `dense` (the catalog's ranker, hybrid search), a past request is also near by the cosine of its
        vector and the query's (the one the engine computed); requests are embedded on a worker thread, so a
        search never waits for them.
        """
        index = self._index(scope)
        if index is None:
            return {}
        return self._evidence(index, session, query, allowed, dense)

    def _evidence(
        self,
        index: _ScopeIndex,
        session: str,
        query: str,
        allowed: Set[str] | None,
        dense: DenseRanker | None,
        catalog: Catalog | None = None,
    ) -> dict[str, Evidence]:
        terms = index.similarities(query)
        cosines = dict(self._near_dense(index, query, dense)) if dense is not None else {}
        near = set(cosines)
        if terms is not None:
            near.update((terms >= self.weights.near).nonzero()[0].tolist())
        if not near:
            return {}
        now = self._clock()
        rows = list(near)
        similarities = [0.0] * len(rows) if terms is None else list(map(terms.item, rows))
        votes = index.votes
        tallies: dict[str, _Tally] = {}
        own: dict[str, _Tally] = {}  # the searching session's votes alone, in case too few sessions voted
        for row, term in zip(rows, similarities, strict=True):
            embedding = cosines.get(row, 0.0) if cosines else 0.0
            similarity = max(term, embedding)
            for tool, voter, at, first, missed in votes[row]:
                if (allowed is None or tool in allowed) and (catalog is None or tool in catalog):
                    weight = similarity * 0.5 ** (max(0.0, now - at) / HALF_LIFE_S)
                    tally = tallies.get(tool)
                    if tally is None:  # `_cast`, inline: most tools get one vote
                        tallies[tool] = [
                            {voter: weight},
                            term,
                            embedding,
                            similarity if first else 0.0,
                            similarity if missed else 0.0,
                        ]
                    else:
                        _cast(tallies, tool, voter, weight, term, embedding, similarity, first, missed)
                    if voter == session:
                        _cast(own, tool, voter, weight, term, embedding, similarity, first, missed)
        evidence: dict[str, Evidence] = {}
        for tool, tally in tallies.items():
            if len(tally[0]) < self.min_sessions:  # other sessions' votes do not count yet: the session's own do
                if tool not in own:
                    continue
                tally = own[tool]
            sessions, lexical, embedded, listed_first, not_listed = tally
            evidence[tool] = Evidence(lexical, embedded, sum(sessions.values()), listed_first, not_listed)
        return evidence

    def wait_for_vectors(self, timeout: float | None = None) -> bool:
        """Wait until every past request queued for embedding is embedded; False when `timeout` ran out first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self._pending.unfinished_tasks:
            if deadline is not None and time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True

    def search(
        self,
        inner: SearchIndex,
        query: str,
        *,
        limit: int,
        mode: SearchMode,
        allowed: Set[str] | None,
        catalog: Catalog,
        scope: str,
        session: str,
        dense: DenseRanker | None,
    ) -> SearchResult:
        """`inner`'s result for `query`, re-ranked by the scope's pairs (see the module docstring)."""
        index = self._index(scope)
        if index is None or not index.size:
            return inner.search(query, limit=limit, mode=mode, allowed=allowed)
        # Searched first: the query's words and vector (hybrid) are then the engine's, already analysed.
        result = inner.search(query, limit=limit, mode=mode, allowed=allowed)
        evidence = self._evidence(index, session, query, allowed, dense if mode == "hybrid" else None, catalog)
        if not evidence:
            return result
        if limit < self.weights.depth and not _complete(result, evidence):
            result = inner.search(query, limit=self.weights.depth, mode=mode, allowed=allowed)
        return self.apply(result, evidence, catalog, limit=limit)

    def apply(
        self, result: SearchResult, evidence: Mapping[str, Evidence], catalog: Catalog, *, limit: int | None = None
    ) -> SearchResult:
        """`result` with the best-scored voted tool moved up (see the module docstring), its first `limit` hits."""
        if not evidence:
            return _first(result, limit)
        hits = result.hits
        count = len(hits)
        candidates = [(hit.name, 0.0 if hit.confidence is None else hit.confidence) for hit in hits]
        names, scores = self.weights.scores(candidates, evidence, result.mode)
        voted = [row for row in range(count) if names[row] in evidence]
        voted.extend(range(count, len(names)))
        best = max(voted, key=scores.__getitem__)
        tool = names[best]
        if not hits and evidence[tool].nearest < self.min_similarity:
            return _first(result, limit)
        hit = hits[best] if best < count else None  # the engine's hits are the first candidates, in order
        # Its place: before the first hit scored lower; a voted hit only ever moves up, so only those above it count.
        above = best if hit is not None else count
        top = scores[best]
        place = next((row for row in range(above) if scores[row] < top), above)
        order = list(hits)
        if hit is not None:
            del order[best]
        if limit is None or place < limit:  # else its place is past the cut: the hits above it stand as they are
            value = max(_confidence(hit), evidence[tool].confidence)
            if place < len(order):
                value = max(value, _confidence(order[place]))
            if place > 0:
                value = min(value, _confidence(order[place - 1]))
            changed = hit is None or place < best or value > _confidence(hit)
            namespace = hit.namespace if hit is not None else catalog[tool].namespace
            learned = SearchHit(name=tool, score=0.0, namespace=namespace, confidence=value, learned=changed)
            order.insert(place, learned)
        order = order[:limit]
        last = len(order)
        scored = tuple(  # each hit built field by field: `dataclasses.replace` takes over twice as long
            SearchHit(
                name=one.name,
                score=float(last - rank),
                namespace=one.namespace,
                confidence=one.confidence,
                learned=one.learned,
            )
            for rank, one in enumerate(order)
        )
        added = int(hit is None)
        return SearchResult(query=result.query, mode=result.mode, hits=scored, total=result.total + added)

    def _near_dense(self, index: _ScopeIndex, query: str, dense: DenseRanker) -> list[tuple[int, float]]:
        """(row, cosine) of each past request whose embedding is at least the fitted ``near`` alike."""
        embedder = dense.embedder
        model = embedder.model_id
        known = self._vectors.setdefault(model, {})
        if model not in index.queued:  # each request is queued once: later searches skip the scan
            missing = [text for text in index.requests if text not in known and (model, text) not in self._queued]
            with self._lock:
                for text in missing:
                    if (model, text) not in self._queued:
                        self._queued.add((model, text))
                        self._pending.put((embedder, text))
                if missing and self._worker is None:
                    self._worker = threading.Thread(target=self._embed, name="toolscout-learned", daemon=True)
                    self._worker.start()
                index.queued.add(model)
        try:
            vector = dense.query_vector(query)
        except Exception:  # the embedder is optional: its failure leaves the lexical votes
            return []
        return index.near_dense(vector, model, known, self.weights.near)

    def _embed(self) -> None:
        """Embed queued past requests, one at a time, for as long as the process runs."""
        while True:
            embedder, text = self._pending.get()
            try:
                vector = embedder.embed_query(text)
            except Exception as exc:  # a failing embedder leaves the request lexical
                logger.debug("learning: cannot embed a past request: %s", exc)
            else:
                self._vectors.setdefault(embedder.model_id, {})[text] = vector.astype(np.float16)
            finally:
                self._pending.task_done()

    def _index(self, scope: str) -> _ScopeIndex | None:
        """The scope's index; refreshed by the one search that finds it due (others meanwhile use the old one)."""
        return self._indexes.get(scope)

    def _failed(self, failure: Exception) -> None:
        self._health.failed("learning: ranking unlearned, the usage store %r failed: %s", self.store, failure)


def _complete(result: SearchResult, evidence: Mapping[str, Evidence]) -> bool:
    """Whether a deeper search would list no voted tool past `result`'s hits, so that it would rank as `result` does.

    Its first hits would be these, with these confidences and total (`SearchResult.listed`); one that abstained
    abstains at any limit.
    """
    if result.abstained:
        return True
    listed = result.listed
    if listed is None:
        return False
    shown = {hit.name for hit in result.hits}
    return not any(tool in listed for tool in evidence if tool not in shown)


def _first(result: SearchResult, limit: int | None) -> SearchResult:
    return (
        result if limit is None or len(result.hits) <= limit else dataclasses.replace(result, hits=result.hits[:limit])
    )


_Tally = list[Any]
"""One tool's votes so far: [{session: its vote's weight}, lexical, dense, first, missed] (see `Evidence`)."""


def _cast(
    tallies: dict[str, _Tally],
    tool: str,
    voter: str,
    weight: float,
    term: float,
    embedding: float,
    similarity: float,
    first: bool,
    missed: bool,
) -> None:
    """Count one vote for `tool` in `tallies`: each session once (its heaviest vote), the other values their highest."""
    tally = tallies.get(tool)
    if tally is None:
        tallies[tool] = [{voter: weight}, term, embedding, similarity if first else 0.0, similarity if missed else 0.0]
        return
    sessions = tally[0]
    sessions[voter] = max(sessions.get(voter, 0.0), weight)
    tally[1] = max(tally[1], term)
    tally[2] = max(tally[2], embedding)
    if first:
        tally[3] = max(tally[3], similarity)
    if missed:
        tally[4] = max(tally[4], similarity)


def _confidence(hit: SearchHit | None) -> float:
    return 0.0 if hit is None or hit.confidence is None else hit.confidence


class _Context:
    """One `learned_search` block: what its searches are learned for (the context variable's value while it runs).

    A plain class with its own ``__enter__``: the block wraps every ``tool_search``, and a generator-based context
    manager over a frozen dataclass costs several times as much.
    """

    __slots__ = ("_token", "dense", "ranking", "scope", "session")

    def __init__(self, ranking: LearnedRanking, scope: str, session: str, dense: DenseRanker | None) -> None:
        self.ranking, self.scope, self.session, self.dense = ranking, scope, session, dense

    def __enter__(self) -> None:
        self._token = _SEARCHING.set(self)

    def __exit__(self, *failure: object) -> None:
        _SEARCHING.reset(self._token)


_SEARCHING: ContextVar[_Context | None] = ContextVar("toolscout_learned_search", default=None)


def learned_search(
    ranking: LearnedRanking | None, *, scope: str, session: str, dense: DenseRanker | None = None
) -> contextlib.AbstractContextManager[None]:
    """Searches inside this block are ranked with `ranking`'s pairs of `scope`, for `session` (None: unlearned).

    `dense`: the catalog's dense ranker (`HybridIndex.dense`), so hybrid searches also find near past requests
    by embedding, reusing the query vector the engine computed.
    """
    if ranking is None:
        return contextlib.nullcontext()
    return _Context(ranking, scope, session, dense)


class LearnedStage:
    """The ``learned`` `SearchStage`: the engine's result re-ranked by the current `learned_search`, if any."""

    def search(
        self,
        inner: SearchIndex,
        query: str,
        *,
        limit: int,
        mode: SearchMode,
        allowed: Set[str] | None,
        catalog: Catalog,
    ) -> SearchResult:
        """`inner`'s result, re-ranked by the learning scope's pairs when a `learned_search` is active."""
        context = _SEARCHING.get()
        if context is None:
            return inner.search(query, limit=limit, mode=mode, allowed=allowed)
        return context.ranking.search(
            inner,
            query,
            limit=limit,
            mode=mode,
            allowed=allowed,
            catalog=catalog,
            scope=context.scope,
            session=context.session,
            dense=context.dense,
        )


def _stage(settings: ScoutSettings) -> LearnedStage | None:
    return LearnedStage() if settings.learning.enabled else None


# Outside the reranker (which would re-judge learned tools by their text alone), inside the cut.
register_stage("learned", _stage, before="rerank")
