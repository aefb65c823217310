"""The provider adapter contract, and the registry the CLI, `choose_style` and the loops look adapters up in.

Adding a provider is one module that builds a `ProviderAdapter` and one `register_provider` line
in ``toolscout/providers/__init__.py`` (or in your own code, for a provider toolscout does not ship).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from .._errors import ConfigError
from .._scout import ScoutSession
from ..dispatch import ToolOutcome
from ._calls import NativeSearch, ProviderCall, Rendering
from ._names import NameMap, NameRules
from ._surface import ProviderStyle

__all__ = ["Adapter", "ProviderAdapter", "get_provider", "provider_names", "register_provider"]


class ProviderAdapter(Protocol):
    """Everything toolscout needs to speak one provider API.

    Contract:
        - `render` returns exactly the request fields toolscout owns (the tools array and the
          system slot with the guidance) for the session's current turn, in `style` (None: the
          scout's configured style, or native where `choose_style` picked it); it raises
          `ConfigError` for a style or native `search` variant the API does not have.
        - `parse_calls` returns the tool calls of a response (an SDK object or plain JSON) with
          provider names mapped back to toolscout names through `names`; it never raises for
          a malformed response, it returns what it could read.
        - `format_result` turns a dispatched call's outcome into the item the provider expects
          next in the conversation.
        - `native_search` lists the API's native search variants, the default first (empty: the
          API has no native tool search), and `supports_native` says whether a model id has it.
        - Adapters hold no per-request state; one instance serves every session and thread.
    """

    @property
    def name(self) -> str:
        """The API's name, e.g. ``anthropic``; the registry key."""
        ...

    @property
    def names(self) -> NameRules:
        """The API's rules for tool names (toolscout maps names that break them)."""
        ...

    @property
    def native_search(self) -> tuple[NativeSearch, ...]:
        """Native search variants, the default first (empty: none)."""
        ...

    @property
    def deferred_summaries(self) -> bool:
        """True when the model reads a deferred tool's name and description up front (not its schema)."""
        ...

    def supports_native(self, model: str) -> bool:
        """True when `model` has native tool search on this API."""
        ...

    def render(
        self, session: ScoutSession, *, style: ProviderStyle | None = None, search: NativeSearch | None = None
    ) -> Rendering[object]:
        """The request fields for the session's current turn."""
        ...

    def parse_calls(self, response: object, names: NameMap) -> list[ProviderCall]:
        """The tool calls in a response, with toolscout names."""
        ...

    def format_result(self, outcome: ToolOutcome, call: ProviderCall, rendering: Rendering[object]) -> object:
        """The conversation item answering `call` with `outcome`."""
        ...

    def answer_text(self, response: object) -> str:
        """The text of a response's final answer."""
        ...


def _no_native(model: str) -> bool:
    return False


@dataclass(frozen=True, slots=True, kw_only=True)
class Adapter:
    """A `ProviderAdapter` assembled from a provider module's functions (by default an API without native search)."""

    name: str
    names: NameRules
    native_search: tuple[NativeSearch, ...] = ()
    supports_native: Callable[[str], bool] = _no_native
    renderer: Callable[..., Rendering[Any]]
    """``renderer(session, style=..., [search=...])``; `search` is passed only to APIs with native search."""
    parse_calls: Callable[[object, NameMap], list[ProviderCall]]
    format_result: Callable[[ToolOutcome, ProviderCall, Rendering[Any]], object]
    answer_text: Callable[[object], str]
    deferred_summaries: bool = False

    def render(
        self, session: ScoutSession, *, style: ProviderStyle | None = None, search: NativeSearch | None = None
    ) -> Rendering[object]:
        """Render the turn; a `search` variant the API lacks is a `ConfigError` naming the valid ones."""
        if not self.native_search:
            if search is not None:
                raise ConfigError(f"{self.name} has no native tool search variants", key="search")
            return self.renderer(session, style=style)
        variant = search or self.native_search[0]
        if variant not in self.native_search:
            valid = ", ".join(self.native_search)
            raise ConfigError(f"{variant!r} is not a search variant of {self.name} ({valid})", key="search")
        return self.renderer(session, style=style, search=variant)


_ADAPTERS: dict[str, ProviderAdapter] = {}


def register_provider(adapter: ProviderAdapter) -> None:
    """Make `adapter` available under its name (replacing an adapter of the same name)."""
    _ADAPTERS[adapter.name] = adapter


def get_provider(name: str) -> ProviderAdapter:
    """The adapter registered as `name`.

    Raises:
        ConfigError: No adapter has that name; the registered names are listed.
    """
    try:
        return _ADAPTERS[name]
    except KeyError:
        raise ConfigError(f"unknown provider {name!r}; use one of: {', '.join(_ADAPTERS)}", key="provider") from None


def provider_names() -> tuple[str, ...]:
    """The registered provider names, in registration order."""
    return tuple(_ADAPTERS)
