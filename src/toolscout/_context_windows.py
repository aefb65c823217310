"""Context-window sizes of common models, for the share-of-context activation threshold.

The built-in table holds published defaults as of late 2026. They are defaults to override:
providers change limits, gateways cap them, and a deployment may run a model with a smaller
window. Pass ``overrides`` (model id -> tokens) to `context_window` for anything not listed or
listed wrongly.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType

from ._errors import ConfigError

__all__ = ["MODEL_CONTEXT_WINDOWS", "context_window"]

_1M = 1_000_000
_GEMINI_1M = 1_048_576

MODEL_CONTEXT_WINDOWS: Mapping[str, int] = MappingProxyType(
    {
        # Anthropic: 200k, except the 1M-context generations from Opus/Sonnet 4.6 on.
        "claude": 200_000,
        "claude-2-0": 100_000,
        "claude-instant": 100_000,
        "claude-opus-4-6": _1M,
        "claude-opus-4-7": _1M,
        "claude-opus-4-8": _1M,
        "claude-sonnet-4-6": _1M,
        "claude-opus-5": _1M,
        "claude-sonnet-5": _1M,
        # OpenAI
        "gpt-3.5-turbo": 16_385,
        "gpt-4": 8_192,
        "gpt-4-32k": 32_768,
        "gpt-4-turbo": 128_000,
        "gpt-4-1106-preview": 128_000,
        "gpt-4-0125-preview": 128_000,
        "gpt-4o": 128_000,
        "gpt-4.1": 1_047_576,
        "gpt-4.5": 128_000,
        "gpt-5": 400_000,
        "gpt-5-chat": 128_000,
        "gpt-5.1-chat": 128_000,
        "gpt-5.2-chat": 128_000,
        "gpt-5.4": 1_050_000,
        "gpt-5.5": 1_050_000,
        "gpt-oss": 131_072,
        "o1": 200_000,
        "o1-mini": 128_000,
        "o1-preview": 128_000,
        "o3": 200_000,
        "o4-mini": 200_000,
        # Google
        "gemini-1.5-pro": 2_097_152,
        "gemini-1.5-flash": _GEMINI_1M,
        "gemini-2": _GEMINI_1M,
        "gemini-3": _GEMINI_1M,
        "gemma-3": 131_072,
        # Meta
        "llama-3": 8_192,
        "llama-3.1": 131_072,
        "llama-3.2": 131_072,
        "llama-3.3": 131_072,
        "llama3": 8_192,
        "llama3.1": 131_072,
        "llama3.2": 131_072,
        "llama3.3": 131_072,
        "llama-4-scout": 10_000_000,
        "llama-4-maverick": _1M,
        # Alibaba
        "qwen2.5": 32_768,
        "qwen3": 32_768,
        "qwen3-coder": 262_144,
        "qwen3-max": 262_144,
        "qwen-max": 32_768,
        "qwen-plus": 131_072,
        "qwen-turbo": _1M,
        # Mistral
        "mistral-large": 131_072,
        "mistral-medium": 131_072,
        "mistral-small": 131_072,
        "mistral-7b": 32_768,
        "mistral-nemo": 131_072,
        "open-mistral-nemo": 131_072,
        "ministral": 131_072,
        "mixtral-8x7b": 32_768,
        "mixtral-8x22b": 65_536,
        "codestral": 256_000,
        "devstral": 131_072,
        # DeepSeek
        "deepseek-chat": 128_000,
        "deepseek-reasoner": 128_000,
        "deepseek-v3": 128_000,
        "deepseek-r1": 128_000,
        # Others
        "grok-3": 131_072,
        "grok-4": 256_000,
        "command-r": 128_000,
        "command-a": 256_000,
    }
)
"""Built-in context windows in tokens, keyed by normalized model id or id prefix (read-only)."""

# A prefix only matches up to one of these, so "gpt-4" never claims "gpt-4o" or "gpt-40".
_BOUNDARY = frozenset("-.:_@[")
# Cloud-vendor prefixes in front of the model id: "us.anthropic.claude-…" (Bedrock), "anthropic/…".
_VENDOR_DOT = re.compile(r"^(?:(?:us|eu|apac|au|jp|global)\.)?(?:anthropic|meta|mistral|openai|deepseek|qwen|google)\.")
_CLAUDE_DOT = re.compile(r"(?<=\d)\.(?=\d)")
_ONE_MILLION_MARKER = "[1m]"


def context_window(model: str | None, overrides: Mapping[str, int] | None = None) -> int | None:
    """Return the context window of `model` in tokens, or None if it is unknown.

    Lookup runs over `overrides` merged on top of `MODEL_CONTEXT_WINDOWS`: first the exact id
    (case-insensitive), then the id without provider prefixes (``anthropic/``, ``openai/``,
    ``models/``, Bedrock's ``us.anthropic.``), then the longest table key that is a prefix of it
    and ends at a separator (``-._:@[``), so date and version suffixes such as
    ``-20250929``, ``-2024-08-06``, ``@20241022`` or ``:free`` are tolerated. Claude ids written
    with dots (``claude-sonnet-4.5``) match their dashed form. A Claude-Code-style ``[1m]``
    suffix (``claude-sonnet-4-5[1m]``, ``opus[1m]``) means a 1M-token window.

    Args:
        model: The model id as sent to the provider; None or empty gives None.
        overrides: Model id (or id prefix) -> context window, taking precedence over the table.

    Raises:
        ConfigError: An override is not a positive integer.
    """
    if not model:
        return None
    table = dict(MODEL_CONTEXT_WINDOWS)
    for key, value in (overrides or {}).items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(f"context window must be a positive integer, got {value!r}", key=f"context_windows.{key}")
        table[key.strip().lower()] = value
        table[_normalize(key)] = value
    raw = model.strip().lower()
    if raw in table:
        return table[raw]
    if raw.endswith(_ONE_MILLION_MARKER):
        return _1M
    return _lookup(_normalize(model), table)


def _lookup(name: str, table: Mapping[str, int]) -> int | None:
    if name in table:
        return table[name]
    best: str | None = None
    for key in table:
        if (
            len(key) < len(name)
            and name.startswith(key)
            and name[len(key)] in _BOUNDARY
            and (best is None or len(key) > len(best))
        ):
            best = key
    return None if best is None else table[best]


def _normalize(model: str) -> str:
    name = model.strip().lower().rsplit("/", 1)[-1]
    name = _VENDOR_DOT.sub("", name).removeprefix("meta-")
    if name.startswith("claude"):
        name = _CLAUDE_DOT.sub("-", name)
    return name
