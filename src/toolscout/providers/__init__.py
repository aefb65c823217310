"""Provider adapters: render toolscout's tools for OpenAI, Anthropic and Gemini, parse their tool calls, format results.

One module per API, each with ``render`` / ``parse_calls`` / ``format_result`` / ``answer_text``:
`openai_chat`, `openai_responses`, `anthropic`, `gemini`. `choose_style` picks native tool
search where a model has it. SDK loop helpers live in `toolscout.providers.loops`.
"""

from .auto import StyleChoice, choose_style, native_supported
from .calls import CallKind, NativeSearch, ProviderCall, Rendering, dispatch_call, found_tools, presented, result_text
from .names import ANTHROPIC_NAMES, GEMINI_NAMES, OPENAI_NAMES, NameMap, NameRules, provider_name
from .surface import NATIVE_SEARCH_TOOL, Provider, ProviderStyle, Surface, build_surface, name_map

__all__ = [
    "ANTHROPIC_NAMES",
    "GEMINI_NAMES",
    "NATIVE_SEARCH_TOOL",
    "OPENAI_NAMES",
    "CallKind",
    "NameMap",
    "NameRules",
    "NativeSearch",
    "Provider",
    "ProviderCall",
    "ProviderStyle",
    "Rendering",
    "StyleChoice",
    "Surface",
    "build_surface",
    "choose_style",
    "dispatch_call",
    "found_tools",
    "name_map",
    "native_supported",
    "presented",
    "provider_name",
    "result_text",
]
