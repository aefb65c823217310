"""Provider adapters: render toolscout's tools for OpenAI, Anthropic and Gemini, parse their tool calls, format results.

One module per API, each with ``render`` / ``parse_calls`` / ``format_result`` / ``answer_text``:
`openai_chat`, `openai_responses`, `anthropic`, `gemini`. `choose_style` picks native tool
search where a model has it. SDK loop helpers live in `toolscout.providers.loops`.
"""

from ._auto import StyleChoice, choose_style, native_supported
from ._calls import CallKind, NativeSearch, ProviderCall, Rendering, dispatch_call, found_tools, presented, result_text
from ._names import ANTHROPIC_NAMES, GEMINI_NAMES, OPENAI_NAMES, NameMap, NameRules, provider_name
from ._surface import NATIVE_SEARCH_TOOL, Provider, ProviderStyle, Surface, build_surface, name_map

__all__ = [
    "ANTHROPIC_NAMES",
    "build_surface",
    "CallKind",
    "choose_style",
    "dispatch_call",
    "found_tools",
    "GEMINI_NAMES",
    "name_map",
    "NameMap",
    "NameRules",
    "NATIVE_SEARCH_TOOL",
    "native_supported",
    "NativeSearch",
    "OPENAI_NAMES",
    "presented",
    "Provider",
    "provider_name",
    "ProviderCall",
    "ProviderStyle",
    "Rendering",
    "result_text",
    "StyleChoice",
    "Surface",
]
