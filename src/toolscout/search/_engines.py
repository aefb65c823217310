"""The search engines by name: a registry a third party can add to.

An engine is an `EngineFactory` registered under a name (``lexical``, ``regex``, ``hybrid`` built in):
from `EngineOptions` it makes the `IndexBuilder` of every catalog. An engine with settings of its own
registers their pydantic model with it; its section of ``search_engines`` (``search_engines.<name>``) is
validated with that model and handed to its factory as `EngineOptions.settings`. ``search_mode`` (so `ToolScout`,
``tool_search`` and the gateway), `toolscout search` and `toolscout eval` all look engines up here.
The embedding backends hybrid uses are registered in `embeddings` (`register_embedder`).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import BaseModel

from .._errors import ConfigError
from .._plugins import provide_names, provide_sections
from .._search_settings import EmbeddingSettings, EngineSettings, RankingSettings
from .._validation import validate_section
from ._base import IndexBuilder, SearchMode
from ._index import IndexConfig, build_index

__all__ = ["EngineFactory", "EngineOptions", "engine_names", "engine_query_mode", "get_engine", "register_engine"]


@dataclass(frozen=True, slots=True, kw_only=True)
class EngineOptions:
    """What an engine's `IndexBuilder` is made from: the settings of one `ToolScout` or one command."""

    embeddings: EmbeddingSettings = field(default_factory=EmbeddingSettings)
    """The embedding backend, for engines that embed."""
    index: IndexConfig = field(default_factory=IndexConfig)
    """The lexical index's own tuning (weights, floor, depths)."""
    ranking: RankingSettings = field(default_factory=RankingSettings)
    """The ranking keys of the settings (`RankingSettings.of`): the built-in engines read the top band and expanders."""
    background: bool = False
    """A long-running host: slow preparation (embedding a catalog) happens off the caller's thread and
    searches answer from what is ready meanwhile. False: a one-shot command that waits for it."""
    engines: EngineSettings = field(default_factory=EngineSettings)
    """Every engine's own settings (``search_engines``), by engine name."""
    settings: BaseModel | None = None
    """The engine's own settings, for an engine registered with a settings model: its section of
    ``search_engines``, or its model's defaults without one (set when the engine is built)."""


EngineFactory = Callable[[EngineOptions], IndexBuilder]
"""Makes an engine's `IndexBuilder` from the options (once per `ToolScout` or command, not per catalog)."""


@dataclass(frozen=True, slots=True)
class _Engine:
    factory: EngineFactory
    query_mode: SearchMode
    settings: type[BaseModel] | None


_ENGINES: dict[str, _Engine] = {}


def register_engine(
    name: str,
    factory: EngineFactory,
    *,
    query_mode: SearchMode = "lexical",
    settings: type[BaseModel] | None = None,
) -> None:
    """Make an engine available as search mode `name` (``search_mode``, ``--mode``).

    Args:
        name: The mode that selects it.
        factory: Makes the `IndexBuilder` (whose indexes satisfy `SearchIndex`) from the options.
        query_mode: The ``mode`` its indexes are searched with for a request (``regex``: the request is
            a pattern, so ``tool_search`` cannot run it; only ``--mode`` can).
        settings: The pydantic model of the engine's own settings, read from ``search_engines.<name>``
            and handed to `factory` as `EngineOptions.settings` (None: it has none).
    """
    _ENGINES[name] = _Engine(factory, query_mode, settings)


def get_engine(name: str, options: EngineOptions | None = None) -> IndexBuilder:
    """The index builder of engine `name`, made from `options` (default: the defaults, one-shot).

    Raises:
        ConfigError: No engine has that name; the registered modes are listed.
    """
    engine, options = _engine(name), options or EngineOptions()
    if engine.settings is not None:
        own = options.engines.section(name)
        if not isinstance(own, engine.settings):
            own = validate_section(engine.settings, {}, f"search_engines.{name}")
        options = dataclasses.replace(options, settings=own)
    return engine.factory(options)


def engine_query_mode(name: str) -> SearchMode:
    """The ``mode`` engine `name`'s indexes are searched with for a request.

    Raises:
        ConfigError: No engine has that name; the registered modes are listed.
    """
    return _engine(name).query_mode


def engine_names(*, requests: bool = False) -> tuple[str, ...]:
    """The registered search modes (only those that rank requests, for ``search_mode``, when asked)."""
    return tuple(name for name, engine in _ENGINES.items() if not requests or engine.query_mode != "regex")


def _engine(name: str) -> _Engine:
    try:
        return _ENGINES[name]
    except KeyError:
        raise ConfigError(f"unknown search mode {name!r}; use one of: {', '.join(_ENGINES)}", key="mode") from None


provide_names("search_mode", lambda: engine_names(requests=True))
provide_sections("search_engines", lambda: {name: e.settings for name, e in _ENGINES.items() if e.settings is not None})


def _lexical(options: EngineOptions) -> IndexBuilder:
    return functools.partial(build_index, config=options.index, ranking=options.ranking)


def _hybrid(options: EngineOptions) -> IndexBuilder:
    if options.background:
        from ._background import BackgroundHybrid  # it imports this registry

        return BackgroundHybrid(options.embeddings, config=options.index, ranking=options.ranking)
    from ._semantic import build_hybrid_index

    return functools.partial(
        build_hybrid_index, settings=options.embeddings, config=options.index, ranking=options.ranking
    )


register_engine("lexical", _lexical)
register_engine("regex", _lexical, query_mode="regex")
register_engine("hybrid", _hybrid, query_mode="hybrid")
