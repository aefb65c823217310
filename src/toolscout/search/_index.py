"""`ToolIndex`: the catalog's search index (lexical, regex and, with a dense ranker, hybrid): the built-in engines.

The stages around an engine (a request that is exactly a tool's name, the confidences and abstention, sentence
parts, a reranker, the cut) are the pipeline's (`_pipeline.py`). A query runs through these steps:

1. ``allowed`` becomes a mask applied before any ranking, cutoff or suggestion, so tools
   outside the caller's scope can never appear.
2. A query that is exactly a tool's name (also quoted, backticked, with ``()`` or as
   ``namespace__name`` / ``namespace.name`` / ``namespace:name``) ranks that tool first. A name
   mentioned inside a longer request keeps its tool in the hits right after the best match of the
   whole request (or first, when it is that match), never above it.
3. Lexical scoring (`LexicalIndex`) of the request's terms after the query expanders
   (``search_expanders``, the `QueryExpander`s of `_expanders.py`, in order): framing verbs and
   idioms, foreign function words, translations ("删除", "löschen" -> "delete"), synonyms ("erase"
   -> "delete") and typo/abbreviation corrections. The relevance floor and the top band are
   measured against the *known* words only, so one unknown word never empties a result.
4. Hits below the relevance floor or outside the top band (``search_top_band``, the one band cut
   of a search) are dropped, never padded; with no hit left, `suggestions` names the nearest
   tools instead.
5. The answer carries its ranked candidates and their `HitEvidence` (`SearchResult.candidates`), from which
   the pipeline's ``confidence`` stage gives each hit its confidence, or abstains (`Judge`).

Hybrid mode fuses that lexical ranking with the dense one (`HybridFusion`) and applies the same
top band to the fused scores. There the lexical scores are shares of what the whole request
allows: its plain English words that no tool has count too, so a request the catalog's words
barely cover leans on the embedder.
"""

from __future__ import annotations

import copy
import functools
import logging
import re
from collections.abc import Callable, Container, Mapping, Sequence, Set
from itertools import repeat
from typing import Annotated, Protocol, TypeAlias, runtime_checkable

import numpy as np
import numpy.typing as npt
from pydantic import Field

from .._errors import SearchError
from .._search_settings import RankingSettings
from .._validation import CheckedModel, Finite, NoBool
from ..catalog import Catalog
from ..catalog._internal import ToolNames
from ._base import JUDGED_HITS, Candidates, SearchMode, SearchResult, ranked_hit, search_result_of
from ._confidence import HitEvidence, LexicalEvidence
from ._expand import ExpansionContext, unexpanded
from ._expanders import get_expander
from ._fields import tool_fields
from ._hybrid import HybridFusion
from ._language import word_languages
from ._lexical import LexicalConfig, LexicalIndex, NonNegative, QueryTerms
from ._regex import RegexIndex
from ._suggest import NameSuggester
from ._tokenize import stem, words

__all__ = ["DenseRanking", "EngineAnswer", "Fusion", "IndexConfig", "ToolIndex", "build_index"]

logger = logging.getLogger(__name__)

# A word as written in prose: letters, an optional 's, trailing punctuation; not an identifier or a path. Found as
# whole whitespace-separated tokens of a request in one pass (`str.split` and `\s` agree on what whitespace is).
_PLAIN_WORD = re.compile(r"(?<!\S)[(\"'“‘]?[^\W\d_]+(?:['’][^\W\d_]+)?[)\"'”’.,!?;:]*(?!\S)")
_MAXIMUM = np.maximum.reduce
"""The largest of an array (``ndarray.max`` without its Python wrapper)."""
_ANALYSED = 16
"""How many requests' analyses (`ToolIndex._analyse`) an index keeps: a request searched again deeper (the ``learned``
stage's second search), with its sentences (``parts``), is not analysed again."""

Ranking: TypeAlias = list[tuple[str, float]]
Fusion: TypeAlias = Callable[[Ranking, Ranking], Ranking]
"""Fuses a lexical and a dense ranking (name, score; best first) into one ranking, best first."""


@runtime_checkable
class RequestFusion(Protocol):
    """A `Fusion` that adapts to each request (`HybridFusion` weighs the lexical side by the request's languages).

    Contract: `for_request` is cheap, pure and thread-safe, and returns the `Fusion` that fuses that request's
    rankings; the index calls it once per hybrid search.
    """

    def for_request(self, query: str) -> Fusion:
        """The fusion for `query`."""
        ...


class DenseRanking(Protocol):
    """Ranks a catalog's tools by embedding similarity (supplied by `toolscout.search.embeddings`)."""

    def rank(self, query: str, allowed: Set[str] | None) -> Ranking:
        """Return ``(name, similarity)`` pairs, best first, only for names in `allowed` when given."""
        ...


class IndexConfig(CheckedModel):
    """The lexical engine's own tuning (built directly, a bad value is a `ConfigError` naming its key).

    The keys of the settings it ranks by (top band, expanders) are `RankingSettings`.
    """

    lexical: LexicalConfig = Field(default_factory=LexicalConfig)
    """The lexical ranking's tuning."""
    max_limit: Annotated[int, NoBool, Field(ge=1)] = 50
    """Hard cap on hits per query, whatever `limit` asks for."""
    floor: Annotated[float, Finite, Field(ge=0, lt=1)] = 0.04
    """Relevance floor, as a share of the best score the query's known words allow."""
    fuzzy_weight: NonNegative = 0.8
    """Weight of a typo- or abbreviation-corrected word, times its similarity."""
    synonym_weight: NonNegative = 0.8
    """Weight of a word a query's word stands for ("remove" -> "delete", "folder" -> "directory"); 0 turns it off."""
    synonyms: tuple[tuple[str, ...], ...] | None = None
    """Groups of interchangeable words (each expands to the others); null: the language files' groups
    (`synonym_groups`). Add a domain's own with ``(*synonym_groups(), ("ship", "deploy"))``."""
    translation_weight: NonNegative = 1.0
    """Weight of the English word a query word in another language stands for ("删除" -> "delete"), from a
    built-in lexicon of common tool words (`Translations`); 0 turns it off. 1.0 measured best of 0.5/0.8/1.0/1.3
    on the multilingual probe (bench/multilingual.py)."""
    suggestions: Annotated[int, NoBool, Field(ge=0)] = 5
    """How many nearest tool names to suggest when nothing matches."""
    fusion_depth: Annotated[int, NoBool, Field(ge=1)] = 50
    """How many lexical and dense candidates hybrid fusion considers."""
    unknown_word_weight: NonNegative = 0.5
    """Hybrid only: each plain English word of the query that no tool contains adds this share of the rarest
    word's best score to the lexical score a full match would get, so a request whose telling words the catalog
    lacks ("umbrella", "smog") leans on the embedder; 0 turns it off. Chosen on the sample requests (hybrid R@5
    0.731 -> 0.780, R@1 0.527 -> 0.516); BFCL's held-out live requests 0.677 / 0.847 -> 0.679 / 0.849, BFCL
    tuning 0.733 / 0.899 -> 0.734 / 0.899 (``bench/tune_hybrid.py --unknown-words``, fp32 MiniLM; with the int8
    default through ``tool_search``, ``bench/compare_retrieval.py``: 0.733 / 0.899 -> 0.731 / 0.898)."""


def build_index(
    catalog: Catalog,
    *,
    dense: DenseRanking | None = None,
    fuse: Fusion | None = None,
    config: IndexConfig | None = None,
    ranking: RankingSettings | None = None,
) -> ToolIndex:
    """Build the search index of `catalog` (call once per catalog fingerprint; see `IndexCache`).

    Args:
        catalog: The tools to index.
        dense: A dense ranker for ``mode="hybrid"``; without one, hybrid runs lexical.
        fuse: How hybrid mode fuses the lexical and dense rankings (default: `HybridFusion`, a measured score blend).
        config: The index's own tuning.
        ranking: The ranking keys of the settings (a `ScoutSettings` will do); default: their defaults, whatever
            the ``TOOLSCOUT_*`` variables say.
    """
    return ToolIndex(catalog, dense=dense, fuse=fuse, config=config, ranking=ranking)


class ToolIndex:
    """The search index of one catalog; implements `SearchIndex`. Immutable and thread-safe."""

    def __init__(
        self,
        catalog: Catalog,
        *,
        dense: DenseRanking | None = None,
        fuse: Fusion | None = None,
        config: IndexConfig | None = None,
        ranking: RankingSettings | None = None,
    ) -> None:
        """Index `catalog`; see `build_index`."""
        self.config = cfg = config or IndexConfig()
        self.ranking = ranking = RankingSettings.of(ranking or RankingSettings())
        self._catalog = catalog
        tools = catalog.tools
        self._names = [tool.name for tool in tools]
        self._namespaces = [tool.namespace for tool in tools]
        self._position = {name: i for i, name in enumerate(self._names)}
        # Ties are broken by name, so the order never depends on the order tools arrived in.
        self._name_rank = np.argsort(np.argsort(np.array(self._names, dtype=object), kind="stable"), kind="stable")
        fields = [tool_fields(tool) for tool in tools]
        self._lexical = LexicalIndex(fields, config=cfg.lexical)
        self._regex = RegexIndex(fields)
        context = ExpansionContext(catalog=catalog, lexical=self._lexical, config=cfg)
        built = (get_expander(name)(context) for name in ranking.search_expanders)
        self._expanders = tuple(expander for expander in built if expander is not None)
        self._exact = ToolNames.of(catalog)
        self._suggester = NameSuggester(tools)
        self._dense = dense
        self._fuse = fuse or HybridFusion()
        self._analysed = functools.lru_cache(maxsize=_ANALYSED)(self._analyse)

    @property
    def fingerprint(self) -> str:
        """The fingerprint of the indexed catalog."""
        return self._catalog.fingerprint

    def with_dense(self, dense: DenseRanking) -> ToolIndex:
        """This index with `dense` for ``mode="hybrid"``, sharing every lexical structure (no rebuild)."""
        other = copy.copy(self)
        other._dense = dense
        return other

    @property
    def catalog(self) -> Catalog:
        """The indexed catalog."""
        return self._catalog

    def search(
        self,
        query: str,
        *,
        limit: int = 5,
        mode: SearchMode = "lexical",
        allowed: Set[str] | None = None,
    ) -> SearchResult:
        """Rank the catalog's tools for `query` (see the module docstring for the steps).

        The `answer`'s hits built, without confidences: the pipeline's ``confidence`` stage builds them once, judged.

        Args:
            query: Keywords or a request (lexical, hybrid), or a pattern (regex). Empty browses the catalog.
            limit: Most hits to return; capped at `IndexConfig.max_limit`.
            mode: ``lexical``, ``regex`` or ``hybrid`` (hybrid without a dense ranker runs lexical).
            allowed: Only these tool names may be returned or suggested.

        Raises:
            SearchError: `limit` is below 1, or the regex is invalid or too long.
        """
        return self.answer(query, limit=limit, mode=mode, allowed=allowed).result()

    def answer(
        self, query: str, *, limit: int = 5, mode: SearchMode = "lexical", allowed: Set[str] | None = None
    ) -> EngineAnswer:
        """What `search` answers, its hits not yet built (`EngineAnswer`).

        Raises:
            SearchError: `limit` is below 1, or the regex is invalid or too long.
        """
        if limit < 1:
            raise SearchError(f"limit must be at least 1, got {limit}")
        limit = min(limit, self.config.max_limit)
        mask = self._mask(allowed)
        if mode == "regex":
            return self._search_regex(query, limit, mask)
        if not query.strip():
            return self._browse(query, limit, mask)
        if mode == "hybrid" and self._dense is not None:
            fused = self._search_hybrid(query, limit, mask, allowed)
            if fused is not None:
                return fused
        return self._search_lexical(query, limit, mask)

    def rank(self, query: str, *, allowed: Set[str] | None = None, depth: int = 50) -> Ranking:
        """The lexical ranking without cutoffs: up to `depth` ``(name, score)`` pairs, best first, score > 0."""
        return self._rank(self._analysed(query)[1], self._mask(allowed), depth)

    def _rank(self, scores: npt.NDArray[np.float64], mask: npt.NDArray[np.bool_] | None, depth: int) -> Ranking:
        """Up to `depth` ``(name, score)`` pairs of `scores` (read, never written), best first, score > 0."""
        if mask is not None:
            scores = np.where(mask, scores, 0.0)
        order = _top(scores, depth, self._name_rank)
        return [(self._names[i], score) for i, score in zip(order, scores[order].tolist(), strict=True)]

    def exact_match(self, query: str, *, allowed: Set[str] | None = None) -> str | None:
        """The tool `query` names exactly (quoted, backticked and namespaced forms included), if any."""
        mask = self._mask(allowed)
        found = self._whole(query, mask) or self._mentions(query, mask)
        return self._names[found[0]] if found else None

    def _whole(self, query: str, mask: npt.NDArray[np.bool_] | None) -> list[int]:
        """Positions of the tools the whole of `query` names (`ToolNames.query_match`)."""
        named = self._exact.query_match(query)
        return self._positions(named.names if named is not None else (), mask)

    def _mentions(self, query: str, mask: npt.NDArray[np.bool_] | None) -> list[int]:
        """Positions of the tools named inside a longer `query`, in order of mention (`ToolNames.mentions`)."""
        return self._positions(self._exact.mentions(query), mask)

    def _positions(self, names: Sequence[str], mask: npt.NDArray[np.bool_] | None) -> list[int]:
        found = (self._position[name] for name in names)
        return [i for i in found if mask is None or mask[i]]

    def _search_lexical(self, query: str, limit: int, mask: npt.NDArray[np.bool_] | None) -> EngineAnswer:
        whole = self._whole(query, mask)
        mentioned = self._mentions(query, mask)
        terms, scores, ideal = self._analysed(query)
        if mask is not None:
            scores = np.where(mask, scores, 0.0)
        elif whole:
            scores = scores.copy()  # the analysis is kept for the request's next search: never written in
        # The ufunc and array methods themselves: numpy's wrappers around them cost more than these small arrays.
        top = float(_MAXIMUM(scores)) if len(scores) else 0.0
        threshold = max(self.config.floor * ideal, self.ranking.search_top_band * top, 1e-9)
        if whole:
            scores[whole] = 0.0
        passing = (scores >= threshold).nonzero()[0]
        depth = max(limit, JUDGED_HITS) + len(mentioned)
        best = passing.take(_by_score_then_name(scores.take(passing), self._name_rank.take(passing))[:depth])
        # As Python numbers, read once: numpy scalars cost more than the work done with them.
        picked = scores.take(best)
        order, best_scores = best.tolist(), picked.tolist()
        shares = (picked / self._whole_request_best(query, terms, ideal)).tolist()
        candidates = zip(order, shares, strict=True)
        evidence = _lexical_evidence([(self._names[i], share) for i, share in candidates if i not in mentioned], terms)
        ranked = _with_mentions(list(zip(order, best_scores, strict=True)), mentioned)
        ranked = [(i, top + 1.0) for i in whole] + ranked
        total = len(whole) + len(passing) + sum(scores[i] < threshold for i in mentioned)
        listed = _Listed(self._position, scores, threshold, (*whole, *mentioned))
        return self._result(query, "lexical", ranked, total, mask, evidence, limit=limit, listed=listed)

    def _search_hybrid(
        self, query: str, limit: int, mask: npt.NDArray[np.bool_] | None, allowed: Set[str] | None
    ) -> EngineAnswer | None:
        assert self._dense is not None
        depth = self.config.fusion_depth
        try:
            dense = self._dense.rank(query, allowed)[:depth]
        except Exception:  # the embedder is optional: any failure degrades to lexical, never to an error
            logger.warning("dense ranking failed; serving lexical results", exc_info=True)
            return None
        # Fusion gets lexical scores, above the floor, as a share of the best the whole request allows.
        terms, scores, ideal = self._analysed(query)
        ideal = ideal or 1.0
        whole_request_best = self._whole_request_best(query, terms, ideal)
        ranking = self._rank(scores, mask, depth)
        lexical = [(name, score / whole_request_best) for name, score in ranking if score >= self.config.floor * ideal]
        fuse = self._fuse.for_request(query) if isinstance(self._fuse, RequestFusion) else self._fuse
        fused = fuse(lexical, dense)
        shares, cosines = dict(lexical), dict(dense)
        # No dense ranking (the embedder reads none of the request's words): the evidence is lexical only.
        unlisted = min(cosines.values(), default=None)
        top_cosine = max(cosines.values(), default=None)
        coverage = _coverage(terms)
        gaps = _gaps([score for _, score in fused])
        evidence = {
            name: HitEvidence(
                lexical=shares.get(name, 0.0),
                cosine=cosines.get(name, unlisted),
                score=score,
                gap=gap,
                top_cosine=top_cosine,
                coverage=coverage,
            )
            for (name, score), gap in zip(fused, gaps, strict=True)
        }
        keywords = _lexical_evidence(lexical, terms)
        top = fused[0][1] if fused else 0.0
        fused = [(name, score) for name, score in fused if score >= self.ranking.search_top_band * top]
        whole = self._whole(query, mask)
        ranked = [(self._position[name], score) for name, score in fused if self._position.get(name) not in whole]
        if mask is not None:
            ranked = [(i, score) for i, score in ranked if mask[i]]
        mentioned = self._mentions(query, mask)
        for i in mentioned:
            evidence.pop(self._names[i], None)
        ranked = [(i, top + 1.0) for i in whole] + _with_mentions(ranked, mentioned)
        if not ranked and dense:  # only weak embedding matches: nothing fits, the nearest are named
            nearest = tuple(name for name, _ in dense[: self.config.suggestions])
            return EngineAnswer(query, "hybrid", (), 0, nearest, None, abstained=True)
        return self._result(query, "hybrid", ranked, len(ranked), mask, evidence, limit=limit, keywords=keywords)

    def _search_regex(self, pattern: str, limit: int, mask: npt.NDArray[np.bool_] | None) -> EngineAnswer:
        candidates = np.arange(len(self._names), dtype=np.int64) if mask is None else np.flatnonzero(mask)
        scores = self._regex.scores(pattern, candidates)
        matched = np.flatnonzero(scores > 0)
        matched = matched[_by_score_then_name(scores[matched], self._name_rank[candidates[matched]])]
        ranked = [(int(candidates[i]), float(scores[i])) for i in matched[:limit]]
        return self._result(pattern, "regex", ranked, len(matched), mask)

    def _browse(self, query: str, limit: int, mask: npt.NDArray[np.bool_] | None) -> EngineAnswer:
        docs = range(len(self._names)) if mask is None else np.flatnonzero(mask).tolist()
        return self._result(query, "lexical", [(i, 0.0) for i in docs[:limit]], len(docs), mask)

    def _result(
        self,
        query: str,
        mode: SearchMode,
        ranked: Sequence[tuple[int, float]],
        total: int,
        mask: npt.NDArray[np.bool_] | None,
        evidence: Mapping[str, HitEvidence] | None = None,
        *,
        limit: int | None = None,
        keywords: Mapping[str, HitEvidence] | None = None,
        listed: Container[str] | None = None,
    ) -> EngineAnswer:
        """Package the first `limit` hits of `ranked` (all when None; `total` counts all that passed).

        With `evidence` (a ranked search, by name), the answer carries its `Candidates`: the first
        ``max(limit, JUDGED_HITS)`` of `ranked` with their evidence (a tool the request names has none), `keywords`
        (a hybrid search's lexical evidence) and the names to suggest should the ``confidence`` stage abstain.
        `listed`: the tools a search at any limit lists (`SearchResult.listed`).
        """
        names, namespaces = self._names, self._namespaces
        shown = ranked if limit is None else ranked[:limit]
        rows = [(names[i], round(score, 4), namespaces[i]) for i, score in shown]
        suggestions = () if rows else self._suggester.suggest(query, limit=self.config.suggestions, mask=mask)
        candidates = None
        if evidence is not None:
            depth = max(len(shown), JUDGED_HITS)
            candidates = Candidates(
                names=tuple([names[i] for i, _ in ranked[:depth]]),
                evidence=evidence,
                keywords=keywords or {},
                nearest=tuple([names[i] for i, _ in ranked[: self.config.suggestions]]),
            )
        return EngineAnswer(query, mode, rows, total, suggestions, candidates, listed=listed)

    def _whole_request_best(self, query: str, terms: QueryTerms, ideal: float) -> float:
        """The lexical score a tool matching every word of the request would get (unknown English words count).

        `ideal`: the `LexicalIndex.ideal` of `terms`.
        """
        unknown = self._lexical.unknown_ideal(_english_unknown(query, terms))
        return (ideal or 1.0) + self.config.unknown_word_weight * unknown

    def _analyse(self, query: str) -> tuple[QueryTerms, npt.NDArray[np.float64], float]:
        """The request's terms, every tool's score and the ideal score (`_analysed` keeps the latest requests')."""
        terms = self._terms(query)
        scores, ideal = self._lexical.scores_and_ideal(terms)
        return terms, scores, ideal

    def _terms(self, query: str) -> QueryTerms:
        """The query's terms after every expander (``search_expanders``, in order)."""
        text = query
        for expander in self._expanders:
            text = expander.rewrite(text)
        expanded = unexpanded(text, self._lexical.query_terms(text))
        for expander in self._expanders:
            expanded = expander.expand(expanded)
        return expanded.final()

    def _mask(self, allowed: Set[str] | None) -> npt.NDArray[np.bool_] | None:
        if allowed is None:
            return None
        mask = np.zeros(len(self._names), dtype=bool)
        positions = [self._position[name] for name in allowed if name in self._position]
        mask[positions] = True
        return mask


class EngineAnswer:
    """`ToolIndex`'s answer before its hits are built.

    The ``confidence`` stage builds them once, with their confidences (`Judge.judge_answer`): building them here and
    again there cost more than the judging.
    """

    __slots__ = ("abstained", "candidates", "listed", "mode", "query", "rows", "suggestions", "total")

    def __init__(
        self,
        query: str,
        mode: SearchMode,
        rows: Sequence[tuple[str, float, str | None]],
        total: int,
        suggestions: tuple[str, ...],
        candidates: Candidates | None,
        *,
        abstained: bool = False,
        listed: Container[str] | None = None,
    ) -> None:
        """An answer of `rows` (each hit's name, score and namespace, best first); see `SearchResult`."""
        self.query = query
        self.mode: SearchMode = mode
        self.rows = rows
        self.total = total
        self.suggestions = suggestions
        self.candidates = candidates
        self.abstained = abstained
        self.listed = listed

    def result(self, confidence: Mapping[str, float] | None = None) -> SearchResult:
        """The answer as `SearchResult`: unjudged, carrying its `Candidates`; or judged, each hit with its `confidence`.

        A judged answer drops its candidates, as the ``confidence`` stage does (`Judge.judge_answer`).
        """
        if confidence is None:
            hits = tuple([ranked_hit(name, score, namespace, None) for name, score, namespace in self.rows])
        else:
            hits = tuple([ranked_hit(name, score, namespace, confidence[name]) for name, score, namespace in self.rows])
        candidates = self.candidates if confidence is None else None
        return search_result_of(
            self.query, self.mode, hits, self.total, self.suggestions, self.abstained, candidates, self.listed
        )


def _english_unknown(query: str, terms: QueryTerms) -> int:
    """How many plain words of an English request no tool contains (0 for a request in another language).

    English stopwords are never search terms, so these are content words. Identifiers, paths and
    handles (``notes.txt``, ``#deploys``, ``parse_manifest``) name things rather than say what is
    wanted. In a request written partly or wholly in another language, the index cannot tell
    content words from function words and an English model reads only part of it, so none count.
    """
    if not terms.unknown:
        return 0
    tokens = _PLAIN_WORD.findall(query)
    # An ASCII request's tokens split alike joined (a word never spans a space): one split instead of one per token.
    found = words(" ".join(tokens)) if query.isascii() else [word for token in tokens for word in words(token)]
    plain = set(map(stem, found))
    unknown = len(plain.intersection(terms.unknown))
    # The languages cost more to read than the words: only a request with such words needs them.
    return unknown if unknown and all(language == "en" for language in word_languages(query)) else 0


def _gaps(scores: Sequence[float]) -> list[float]:
    """Each candidate's `HitEvidence.gap` (`scores`: every candidate's, best first)."""
    if not scores:
        return []
    # Each candidate's best other is the first, the first's is the second (0 when alone).
    others = [scores[1] if len(scores) > 1 else 0.0, *repeat(scores[0], len(scores) - 1)]
    return [
        -1.0 if score <= 0 else min(max((score - other) / score, -1.0), 1.0)
        for score, other in zip(scores, others, strict=True)
    ]


def _lexical_evidence(shares: Sequence[tuple[str, float]], terms: QueryTerms) -> LexicalEvidence:
    """The lexical evidence of candidates given as ``(name, share)``, best first, for a query of `terms`."""
    values = [share for _, share in shares]
    return LexicalEvidence([name for name, _ in shares], values, _gaps(values), _coverage(terms))


def _coverage(terms: QueryTerms) -> float:
    """The share of the query's words that some tool contains (`HitEvidence.coverage`)."""
    known, unknown = len(set(terms.words)), len(set(terms.unknown))
    return known / (known + unknown) if known + unknown else 0.0


def _with_mentions(ranked: list[tuple[int, float]], mentioned: Sequence[int]) -> list[tuple[int, float]]:
    """Tools named inside a longer request follow its best hit, in order of mention, at its score.

    A named tool never drops out, but it does not outrank the tool that best matches the whole
    request either, unless it is that tool. With no other hit, the named tools are the answer.
    """
    if not mentioned:
        return ranked
    if not ranked:
        return [(i, 1.0) for i in mentioned]
    (lead, score), named = ranked[0], set(mentioned)
    following = [(i, score) for i in mentioned if i != lead]
    return [ranked[0], *following, *((i, s) for i, s in ranked[1:] if i not in named)]


def _by_score_then_name(scores: npt.NDArray[np.float64], name_rank: npt.NDArray[np.intp]) -> npt.NDArray[np.intp]:
    """Positions ordered by score (best first), ties by tool name."""
    return np.lexsort((name_rank, -scores))


def _top(scores: npt.NDArray[np.float64], depth: int, name_rank: npt.NDArray[np.intp]) -> list[int]:
    """Indices of the `depth` best positive scores, best first (ties by name)."""
    positive = np.flatnonzero(scores > 0)
    if len(positive) > depth:
        positive = positive[np.argpartition(-scores[positive], depth - 1)[:depth]]
        positive.sort()
    best: list[int] = positive[_by_score_then_name(scores[positive], name_rank[positive])].tolist()
    return best


class _Listed:
    """The tools a lexical search lists at any limit (`SearchResult.listed`): the named ones and those passing."""

    __slots__ = ("_named", "_position", "_scores", "_threshold")

    def __init__(
        self, position: Mapping[str, int], scores: npt.NDArray[np.float64], threshold: float, named: Sequence[int]
    ) -> None:
        self._position, self._scores, self._threshold, self._named = position, scores, threshold, named

    def __contains__(self, name: object) -> bool:
        at = self._position.get(name) if isinstance(name, str) else None
        return at is not None and (at in self._named or bool(self._scores.item(at) >= self._threshold))
