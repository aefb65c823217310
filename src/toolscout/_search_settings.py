"""The settings of search (embeddings, reranking, the top band, the expanders), below the search package.

`ScoutSettings` holds them and the search package reads them; they live here so ``_settings.py``
never imports ``search`` (the layers of ``docs/ARCHITECTURE.md``). Registered names are checked
through `toolscout._plugins`. The keys an engine reads while it ranks are declared once, on
`RankingSettings`, which `ScoutSettings` extends: an engine built from settings reads them from there,
and an engine built directly (``build_index``) from the defaults, never from ``TOOLSCOUT_*`` variables.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ._plugins import RegisteredSections, SectionsPoint, check_registered, plugin_names
from ._validation import CheckedModel, Finite, NoBool

__all__ = [
    "DEFAULT_EXPANDERS",
    "TOP_BAND",
    "EmbeddingSettings",
    "EngineSettings",
    "RankingSettings",
    "RerankSettings",
    "check_expanders",
]

TOP_BAND = 0.25
"""The default top band (``search_top_band``): the largest value measured that costs no recall
with either engine on the sample requests and BFCL's tuning requests (0.3 cost lexical search one sample request
in its top 5; ``bench/bounding.py``)."""

DEFAULT_EXPANDERS: tuple[str, ...] = ("idioms", "function-words", "translations", "synonyms", "corrections")
"""The built-in query expanders in the order every measured ranking used."""


def check_expanders(names: tuple[str, ...]) -> tuple[str, ...]:
    """`names` when each is a registered expander, once.

    Raises:
        ValueError: An unknown or repeated name (the registered ones are listed).
    """
    known = plugin_names("search_expanders")
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ValueError(f"unknown query expander {unknown[0]!r}; use some of: {', '.join(known)}")
    if len(set(names)) < len(names):
        raise ValueError("each expander may appear once")
    return names


class EmbeddingSettings(BaseModel):
    """The embedder behind hybrid search (the ``embeddings`` section of the settings)."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    backend: str = "auto"
    """``auto`` (the first installed local backend: ``onnx``, then ``onnx-minilm``, then ``sentence-transformers``),
    or a registered backend by name: ``onnx`` (toolscout's tool-retrieval model, ``docs/MODEL.md``), ``onnx-minilm``
    (the plain all-MiniLM-L6-v2), ``sentence-transformers``, ``openai-compatible``."""
    threads: Annotated[int, NoBool, Field(ge=1, le=64)] | None = None
    """CPU threads a local model may use (null: half the CPUs, at least 1, at most 4)."""
    model: str | None = None
    """The model: a local directory or cached Hugging Face id for ``sentence-transformers``, an ONNX file for
    ``onnx`` (with ``tokenizer``), the server's model name for ``openai-compatible`` (required there)."""
    tokenizer: Path | None = None
    """The ``tokenizer.json`` of an ONNX ``model`` (null: the packaged all-MiniLM-L6-v2 tokenizer)."""
    url: str | None = None
    """The ``openai-compatible`` endpoint: API root (``http://localhost:11434/v1``) or full embeddings URL."""
    api_key_env: str | None = None
    """The environment variable holding the endpoint's API key (keys never live in config files)."""
    query_prefix: str | None = None
    """Text put before each query for the endpoint's model (null: the model's known prefix, if any)."""
    document_prefix: str | None = None
    """Text put before each tool text for the endpoint's model (null: the model's known prefix, if any)."""
    cache_dir: Path | None = None
    """Where tool embeddings and the int8 model built from the packaged one are cached (null:
    ``$TOOLSCOUT_CACHE_DIR``, else the user cache directory)."""
    languages: tuple[Annotated[str, Field(pattern=r"^([a-z]{2}|\*)$")], ...] | None = None
    """The languages the model knows, as ISO 639-1 codes (``["en"]``); null or ``["*"]``: every language.
    Hybrid search weighs the model's similarities by the share of a query's words in them, so a request
    in a language the model does not know ranks lexically. Off by default: the English-trained
    all-MiniLM-L6-v2 still places some Chinese requests right (``bench/multilingual.py``)."""

    def known_languages(self) -> frozenset[str] | None:
        """The languages the model knows (None: every language)."""
        return None if self.languages is None or "*" in self.languages else frozenset(self.languages)

    @field_validator("backend")
    @classmethod
    def _registered(cls, value: str) -> str:
        return check_registered("embeddings.backend", value, what="embedding backend", also=("auto",))

    @model_validator(mode="after")
    def _endpoint_complete(self) -> EmbeddingSettings:
        if self.backend == "openai-compatible" and not (self.url and self.model):
            raise ValueError("the openai-compatible backend needs both url and model")
        return self


class RerankSettings(CheckedModel):
    """The reranking stage of ``tool_search`` (the ``search_rerank`` section of the settings)."""

    section = "search_rerank"

    reranker: str | None = None
    """The registered reranker to run over each search's top hits (null: none, the engine's order stands);
    ``cross-encoder`` is built in and runs the ONNX model that ``model`` names."""
    top_n: Annotated[int, NoBool, Field(ge=1, le=50)] = 20
    """How many of the engine's top hits the reranker orders (at most 50, the index's cap on hits); hits past
    them keep the engine's order."""
    budget_ms: Annotated[float, Finite, Field(gt=0)] | None = 100.0
    """How long a search waits for the reranker; past it the engine's order stands (null: no limit, the
    reranker runs on the search's own thread)."""
    model: str | None = None
    """A model file or id handed to the reranker's factory (its meaning is the reranker's; for
    ``cross-encoder``, a ``model.onnx`` that ``python -m train cross`` exported)."""

    @field_validator("reranker")
    @classmethod
    def _registered(cls, value: str | None) -> str | None:
        return value if value is None else check_registered("search_rerank.reranker", value, what="reranker")


class RankingSettings(CheckedModel):
    """The ``search_*`` keys of ranking: the engine's top band and expanders, the confidence stage's calibrator.

    `ScoutSettings` extends this model (they are top-level keys of the settings); the built-in engines take
    it (`EngineOptions.ranking`, ``build_index(ranking=...)``), and so does the ``confidence`` stage (calibrator and
    threshold), so each key is declared and checked once.
    """

    search_top_band: Annotated[float, Finite, Field(ge=0, lt=1)] = TOP_BAND
    """Search hits scoring below this share of the best hit's score are dropped, by the engine, before any
    reranking (0 keeps every hit above the engine's relevance floor)."""
    search_expanders: tuple[str, ...] = DEFAULT_EXPANDERS
    """The query expanders of lexical search, in order (registered names, ``register_expander``): framing verbs
    and idioms, foreign function words, translations, synonyms, typo corrections."""
    search_calibrator: str = "logistic"
    """What gives each search hit its ``confidence`` (0 to 1) and decides when nothing fits: ``logistic``, fitted
    for the packaged model on the tooldata dev split and BFCL's tuning requests (``bench/calibrate.py``), or
    another registered one (``register_calibrator``)."""
    search_min_confidence: Annotated[float, Finite, Field(ge=0, le=1)] | None = None
    """A search whose best hit's confidence is under this answers with no tools, naming the nearest as
    suggestions; null: the calibrator's fitted threshold (chosen to empty at most 0.5 % of the relevant requests
    it was fitted on), 0: never abstain."""

    @classmethod
    def of(cls, settings: RankingSettings) -> RankingSettings:
        """Just the ranking keys of `settings` (a `ScoutSettings`): what an engine built from them depends on."""
        return cls.model_construct(**{key: getattr(settings, key) for key in RankingSettings.model_fields})

    @field_validator("search_expanders")
    @classmethod
    def _registered_expanders(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return check_expanders(value)

    @field_validator("search_calibrator")
    @classmethod
    def _registered_calibrator(cls, value: str) -> str:
        return check_registered("search_calibrator", value, what="calibrator")


class EngineSettings(RegisteredSections):
    """The settings of registered engines, by engine name (the ``search_engines`` section).

    An engine registered with a settings model (``register_engine(name, factory, settings=Model)``) reads
    its section here; the keys are such engines' names, each section validated by its engine's model.
    """

    point: ClassVar[SectionsPoint] = "search_engines"
