"""Reversible, collision-free mapping between toolscout tool names and provider tool names.

MCP tool names may be up to 128 characters and contain dots, slashes and colons; providers are
stricter (Anthropic and OpenAI: ``^[a-zA-Z0-9_-]{1,64}$``; Gemini: at most 128 characters of
``[a-zA-Z0-9_.:-]`` starting with a letter or ``_``). A name the provider accepts maps to itself.
Any other name is sanitized (each disallowed character becomes ``_``, Gemini names get a leading
``_`` when needed), cut to fit, and given a short suffix of its SHA-256 (``_`` + 8 hex digits),
so the result depends on the name alone and is stable across sessions, processes and replicas.

Should a suffixed name collide with another name in the same map (which takes an adversarial
catalog), the suffixed one gets a longer hash; names are settled in sorted order, so the map is
still a pure function of the set of names.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from .._errors import CatalogError
from .._settings import BridgeNames

__all__ = ["ANTHROPIC_NAMES", "GEMINI_NAMES", "OPENAI_NAMES", "NameMap", "NameRules", "provider_name"]

_HASH_DIGITS = 8


@dataclass(frozen=True, slots=True, kw_only=True)
class NameRules:
    """What a provider accepts as a tool name."""

    label: str
    """The provider, for messages."""
    max_length: int
    """Longest accepted name."""
    allowed: str
    """Regex character class of the characters a name may contain."""
    first: str | None = None
    """Regex character class the first character must match, when the provider restricts it."""

    def accepts(self, name: str) -> bool:
        """True when the provider accepts `name` as it is."""
        return bool(self._pattern().fullmatch(name))

    def _pattern(self) -> re.Pattern[str]:
        return _name_pattern(self.allowed, self.max_length, self.first)


@functools.lru_cache(maxsize=64)
def _name_pattern(allowed: str, max_length: int, first: str | None) -> re.Pattern[str]:
    body = f"{allowed}{{1,{max_length}}}"
    if first is not None:
        body = f"(?={first}){body}"
    return re.compile(body)


ANTHROPIC_NAMES = NameRules(label="anthropic", max_length=64, allowed="[A-Za-z0-9_-]")
"""Anthropic custom tools: ``^[a-zA-Z0-9_-]{1,64}$``."""
OPENAI_NAMES = NameRules(label="openai", max_length=64, allowed="[A-Za-z0-9_-]")
"""OpenAI function tools (Chat Completions and Responses): ``^[a-zA-Z0-9_-]{1,64}$``."""
GEMINI_NAMES = NameRules(label="gemini", max_length=128, allowed="[A-Za-z0-9_.:-]", first="[A-Za-z_]")
"""Gemini function declarations: up to 128 of ``[a-zA-Z0-9_.:-]``, first a letter or ``_``."""


def provider_name(name: str, rules: NameRules, *, digits: int = _HASH_DIGITS) -> str:
    """The provider name for `name`: itself when accepted, else sanitized with a hash suffix."""
    if rules.accepts(name):
        return name
    clean = re.sub(f"(?!{rules.allowed}).", "_", name, flags=re.DOTALL)
    if rules.first is not None and not re.match(rules.first, clean):
        clean = "_" + clean
    suffix = "_" + hashlib.sha256(name.encode("utf-8")).hexdigest()[:digits]
    return clean[: rules.max_length - len(suffix)] + suffix


class NameMap(Mapping[str, str]):
    """A two-way map between toolscout tool names and one provider's tool names.

    As a mapping it goes from toolscout name to provider name. `to_tool` goes back and passes
    unknown names through unchanged, so a model that calls a tool by its original name still
    reaches it (dispatch then refuses names that are not tools). `bridge` holds the names of the
    session's bridge tools, which adapters need to recognise searches and loads.
    """

    def __init__(self, names: Iterable[str], rules: NameRules, *, bridge: BridgeNames | None = None) -> None:
        """Map every name in `names` for the provider described by `rules`.

        `bridge` names the bridge tools of the session the map is made for (default: the default names).

        Raises:
            CatalogError: Two names share a full SHA-256 prefix (not expected to happen).
        """
        self.rules = rules
        self.bridge = bridge or BridgeNames()
        unique = sorted(set(names))
        forward: dict[str, str] = {name: name for name in unique if rules.accepts(name)}
        taken = set(forward)
        for name in unique:
            if name in forward:
                continue
            for digits in (_HASH_DIGITS, 16, 32, min(64, rules.max_length - 1)):
                candidate = provider_name(name, rules, digits=digits)
                if candidate not in taken:
                    break
            else:
                raise CatalogError(f"cannot give {name!r} a unique {rules.label} tool name", tool_name=name)
            forward[name] = candidate
            taken.add(candidate)
        self._forward = forward
        self._backward = {value: key for key, value in forward.items()}

    def __getitem__(self, name: str) -> str:
        return self._forward[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._forward)

    def __len__(self) -> int:
        return len(self._forward)

    def to_provider(self, name: str) -> str:
        """The provider name for the toolscout name `name` (computed on the fly for unmapped names)."""
        mapped = self._forward.get(name)
        return mapped if mapped is not None else provider_name(name, self.rules)

    def to_tool(self, provider: str) -> str:
        """The toolscout name behind a provider name; unknown names pass through unchanged."""
        return self._backward.get(provider, provider)

    @property
    def renamed(self) -> dict[str, str]:
        """The names the provider needed changed: toolscout name → provider name."""
        return {name: mapped for name, mapped in self._forward.items() if name != mapped}
