"""What every adapter's ``render`` starts from and ends with: the turn's `Frame`.

A frame holds the chosen style, the provider's name map and the `Surface`; an adapter turns it
into its own tools array and system slot, then into a `Rendering` (`Frame.rendering`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from .._errors import ConfigError
from .._scout import ScoutSession
from ._calls import NativeSearch, Rendering
from ._names import NameMap, NameRules
from ._surface import Provider, ProviderStyle, Surface, build_surface, name_map

__all__ = ["Frame", "client_frame", "native_frame"]

FieldsT = TypeVar("FieldsT")


@dataclass(frozen=True, slots=True, kw_only=True)
class Frame:
    """One turn of one session for one provider, before the provider's format."""

    style: ProviderStyle
    """The disclosure style rendered."""
    names: NameMap
    """The provider's name map."""
    surface: Surface
    """The tools the request offers, split by role."""
    preloaded: frozenset[str] = frozenset()
    """Native style: tool names the conversation history already loads (toolscout names)."""

    @property
    def native(self) -> bool:
        """True when the provider's own deferred loading is on this turn (native style, deferral active)."""
        return self.style == "native" and self.surface.active

    def rendering(
        self, provider: Provider, fields: FieldsT, guidance: str, *, search: NativeSearch | None = None
    ) -> Rendering[FieldsT]:
        """The `Rendering` of `fields` (`search`: the native variant, kept only when the turn is native)."""
        return Rendering(
            provider=provider,
            style=self.style,
            search=search if self.native else None,
            fields=fields,
            guidance=guidance,
            names=self.names,
            surface=self.surface,
            preloaded=self.preloaded,
        )


def client_frame(session: ScoutSession, style: ProviderStyle | None, rules: NameRules, *, no_native: str) -> Frame:
    """The frame of an API without native tool search (client-side styles only).

    Raises:
        ConfigError: `style` is ``native`` (with `no_native` as the message), or a client-side
            style other than the ToolScout's.
    """
    chosen = style or session.scout.settings.style
    if chosen == "native":
        raise ConfigError(no_native, key="style")
    surface = build_surface(session, chosen)
    return Frame(style=chosen, names=name_map(session, rules), surface=surface)


def native_frame(
    session: ScoutSession,
    style: ProviderStyle | None,
    rules: NameRules,
    *,
    search: str,
    variants: tuple[str, ...],
    history: Iterable[object] | None,
    referenced: Callable[[Iterable[object]], frozenset[str]],
) -> Frame:
    """The frame of an API with native tool search.

    Args:
        session: The toolscout session.
        style: The style asked for (None: the ToolScout's configured style).
        rules: The API's rules for tool names.
        search: The native search variant asked for; one of `variants`.
        variants: The API's native search variants.
        history: The conversation so far; the tools it already loads (`referenced` reads their
            provider names) are not carried again. None carries every discovery.
        referenced: Reads the provider names a conversation loads.

    Raises:
        ConfigError: An unknown `search`, or a client-side style other than the ToolScout's.
    """
    if search not in variants:
        raise ConfigError(f"must be {_either(variants)}, got {search!r}", key="search")
    chosen = style or session.scout.settings.style
    names = name_map(session, rules)
    loaded = None if history is None else {names.to_tool(name) for name in referenced(history)}
    surface = build_surface(session, chosen, loaded_elsewhere=loaded)
    return Frame(style=chosen, names=names, surface=surface, preloaded=frozenset(loaded or ()))


def _either(values: tuple[str, ...]) -> str:
    """``'a', 'b' or 'c'``."""
    quoted = [repr(value) for value in values]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
