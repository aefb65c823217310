"""Pick the disclosure style for a model: the provider's native tool search where it exists, else client-side.

Native tool search exists on the Anthropic Messages API for Claude Haiku/Sonnet/Opus 4.5 and
later and every Claude 5-generation model (Fable, Mythos, ...), and on the OpenAI Responses API
for ``gpt-5.4`` and later. The decision goes by model id, not by transport: ids routed through
a cloud or gateway (``anthropic.claude-…`` on Bedrock, ``anthropic/claude-…`` or ``openai/gpt-…``
on OpenRouter, ``…@date`` on Vertex AI) get the client-side style, since those routes need other
headers or do not pass tool search through. Chat Completions and Gemini ``generateContent`` have
no native tool search. Pass `override` to force a style.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._errors import ConfigError
from .._settings import Style
from ._calls import NativeSearch
from ._registry import get_provider
from ._surface import Provider, ProviderStyle

__all__ = ["StyleChoice", "choose_style", "native_supported"]


@dataclass(frozen=True, slots=True, kw_only=True)
class StyleChoice:
    """The style chosen for one model and API, and why."""

    style: ProviderStyle
    """The disclosure style to render."""
    reason: str
    """One sentence saying why."""
    search: NativeSearch | None = None
    """Native style: the default search variant for the API (None for client-side styles)."""


def native_supported(model: str, api: Provider) -> bool:
    """True when `model` has native tool search on `api` (judged by its first-party model id)."""
    return get_provider(api).supports_native(model)


def choose_style(
    model: str | None, api: Provider, *, client_style: Style = "bridge", override: ProviderStyle | None = None
) -> StyleChoice:
    """Choose native where `model` supports it on `api`, else `client_style`.

    Args:
        model: The model id as sent to the API (None when unknown).
        api: The provider API.
        client_style: The client-side style to use without native support (the ToolScout's style).
        override: Force this style instead of choosing.

    Raises:
        ConfigError: `override` is ``native`` on an API without native tool search.
    """
    variants = get_provider(api).native_search
    if override is not None:
        if override == "native" and not variants:
            raise ConfigError(f"{api} has no native tool search; use 'bridge' or 'reveal'", key="style")
        search = variants[0] if override == "native" else None
        return StyleChoice(style=override, reason=f"style {override!r} was requested", search=search)
    if not variants:
        return StyleChoice(style=client_style, reason=f"{api} has no native tool search; using {client_style!r}")
    if not model:
        return StyleChoice(style=client_style, reason=f"no model given; using {client_style!r}")
    if native_supported(model, api):
        return StyleChoice(style="native", reason=f"{model} supports native tool search on {api}", search=variants[0])
    return StyleChoice(
        style=client_style,
        reason=f"{model} is not known to support native tool search on {api}; using {client_style!r}",
    )
