"""Provider adapters: render toolscout's tools for OpenAI, Anthropic and Gemini, parse their tool calls, format results.

One module per API, each exposing a `ProviderAdapter` (render a turn, parse calls, format results,
native search support) registered by name: `get_provider("anthropic")`; `register_provider` adds
one. `choose_style` picks native tool search where a model has it. SDK loop helpers live in
`toolscout.providers.loops`.
"""

from . import anthropic, gemini, openai_chat, openai_responses
from ._auto import StyleChoice, choose_style
from ._calls import ProviderCall, dispatch_call
from ._names import NameMap
from ._registry import ProviderAdapter, get_provider, register_provider
from ._surface import Provider, Surface

# The built-in adapters; a new provider is one module with an ADAPTER and one line here.
register_provider(openai_chat.ADAPTER)
register_provider(openai_responses.ADAPTER)
register_provider(anthropic.ADAPTER)
register_provider(gemini.ADAPTER)


__all__ = [
    "choose_style",
    "dispatch_call",
    "get_provider",
    "NameMap",
    "Provider",
    "ProviderAdapter",
    "ProviderCall",
    "register_provider",
    "StyleChoice",
    "Surface",
]
