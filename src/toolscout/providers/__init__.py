"""Provider adapters: render toolscout's tools for OpenAI, Anthropic and Gemini, parse their tool calls, format results.

One module per API, each exposing a `ProviderAdapter` (render a turn, parse calls, format results,
native search support) registered by name: `get_provider("anthropic")`; `register_provider` adds
one. `choose_style` picks native tool search where a model has it. SDK loop helpers live in
`toolscout.providers.loops`.
"""

from . import anthropic, gemini, openai_chat, openai_responses
from ._auto import StyleChoice, choose_style, native_supported
from ._calls import CallKind, NativeSearch, ProviderCall, Rendering, dispatch_call, found_tools, presented, result_text
from ._json import as_json, dicts, text_of
from ._measure import measure_rendering
from ._names import ANTHROPIC_NAMES, GEMINI_NAMES, OPENAI_NAMES, NameMap, NameRules, provider_name
from ._registry import Adapter, ProviderAdapter, get_provider, provider_names, register_provider
from ._surface import Provider, ProviderStyle, Surface, build_surface, name_map, native_search_tool

# The built-in adapters; a new provider is one module with an ADAPTER and one line here.
register_provider(openai_chat.ADAPTER)
register_provider(openai_responses.ADAPTER)
register_provider(anthropic.ADAPTER)
register_provider(gemini.ADAPTER)


__all__ = [
    "Adapter",
    "ANTHROPIC_NAMES",
    "as_json",
    "build_surface",
    "CallKind",
    "choose_style",
    "dicts",
    "dispatch_call",
    "found_tools",
    "GEMINI_NAMES",
    "get_provider",
    "measure_rendering",
    "name_map",
    "NameMap",
    "NameRules",
    "native_search_tool",
    "native_supported",
    "NativeSearch",
    "OPENAI_NAMES",
    "presented",
    "Provider",
    "provider_name",
    "provider_names",
    "ProviderAdapter",
    "ProviderCall",
    "ProviderStyle",
    "register_provider",
    "Rendering",
    "result_text",
    "StyleChoice",
    "Surface",
    "text_of",
]
