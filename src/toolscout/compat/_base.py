"""The `ConfigTranslator` protocol and what a translation reports: toolscout keys, and a note per key."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from pydantic import BaseModel

from .._close import close_names
from .._errors import ConfigError
from .._validation import validate_section

__all__ = ["ConfigTranslator", "KeyNote", "Translated", "check_siblings", "read_block"]

_ModelT = TypeVar("_ModelT", bound=BaseModel)
_TYPO = 80.0
"""How alike (whole-name ``ratio``, 0-100) a sibling key must be to an owned one to be its typo (``tool_serch``
is; ``search`` and ``web_search`` beside ``tool_search`` are other keys)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class KeyNote:
    """What became of one key of another system's config."""

    key: str
    """The key as written, dotted (``tools.tool_search.threshold_pct``); implied settings: ``(implied by ...)``."""
    value: object
    """Its value as written (None for implied settings)."""
    mapped: tuple[str, ...]
    """The toolscout keys it set (empty: ignored)."""
    reason: str
    """How it maps, or why it is ignored."""

    def line(self) -> str:
        """One line for a report: ``key = value  → toolscout keys (reason)`` or ``key  ignored: reason``."""
        written = self.key if self.key.startswith("(") else f"{self.key} = {json.dumps(self.value, default=str)}"
        if not self.mapped:
            return f"{written}  ignored: {self.reason}"
        return f"{written}  → {', '.join(self.mapped)} ({self.reason})"


@dataclass(slots=True, kw_only=True)
class Translated:
    """One system's block translated: the ``toolscout`` keys it sets and a note per key."""

    system: str
    """The system's name (``Hermes Agent``)."""
    block: str
    """Where its block sits (``tools.tool_search``)."""
    settings: dict[str, object] = field(default_factory=dict)
    """``toolscout`` section keys (nested tables as dicts)."""
    origins: dict[str, str] = field(default_factory=dict)
    """Which key of the block each toolscout key came from (for conflict errors)."""
    notes: list[KeyNote] = field(default_factory=list)
    """One note per key of the block, in file order, then the implied settings."""

    def set(self, key: str, value: object, *, source: str, reason: str, written: object = None) -> None:
        """Set toolscout `key` from the block's key `source`, whose value as written is `written`."""
        self.settings[key] = value
        self.origins[key] = source
        self.note(source, written, (f"{key} = {json.dumps(value)}",), reason)

    def imply(self, key: str, value: object, *, reason: str) -> None:
        """Set toolscout `key` that the system's behaviour implies though no key of the block says it."""
        self.settings[key] = value
        self.origins[key] = self.block
        implied = f"{key} = {json.dumps(value)}"
        self.notes.append(KeyNote(key=f"(implied by {self.block})", value=None, mapped=(implied,), reason=reason))

    def note(self, key: str, value: object, mapped: tuple[str, ...], reason: str) -> None:
        """Record a note; a key noted twice gets its mapped keys merged into the first note."""
        for index, existing in enumerate(self.notes):
            if existing.key == key and existing.value == value and mapped and existing.mapped:
                merged = KeyNote(key=key, value=value, mapped=(*existing.mapped, *mapped), reason=existing.reason)
                self.notes[index] = merged
                return
        self.notes.append(KeyNote(key=key, value=value, mapped=mapped, reason=reason))

    def ignore(self, key: str, value: object, reason: str) -> None:
        """Record a key that changes nothing in toolscout."""
        self.notes.append(KeyNote(key=key, value=value, mapped=(), reason=reason))


class ConfigTranslator(Protocol):
    """Reads one other system's tool-search config block into ``toolscout`` settings.

    Register an implementation with `toolscout.compat.register_translator`; `translate_config`
    then runs it over every config file the gateway or ``toolscout config import`` reads.
    """

    @property
    def name(self) -> str:
        """The system's name, as reports show it (``Hermes Agent``)."""
        ...

    @property
    def roots(self) -> tuple[str, ...]:
        """The top-level keys whose presence means a block of this system may be there."""
        ...

    def translate(self, document: Mapping[str, object], *, source: str | None) -> Translated | None:
        """Translate this system's block of `document` (None when it has none).

        Raises:
            ConfigError: A value is out of the system's own range, has the wrong type, or a key is
                unknown (the closest valid one named); the key, the limit and `source` are named.
        """
        ...


def read_block(model: type[_ModelT], data: Mapping[str, object], key: str, *, source: str | None) -> _ModelT:
    """Validate a block as `model` (unknown keys refused, ranges enforced), errors naming `key` and `source`."""
    return validate_section(model, data, key, source=source)


def check_siblings(parent: Mapping[str, object], owned: Iterable[str], key: str, *, source: str | None) -> None:
    """Refuse a key of `parent` that looks like a typo of an owned key (``tool_serch`` for ``tool_search``).

    Raises:
        ConfigError: Naming the key, the owned key it resembles and `source`.
    """
    names = tuple(owned)
    for sibling in parent:
        if sibling in names:
            continue
        close = close_names(str(sibling), names, limit=1, min_score=_TYPO, endings_first=False, whole=True)
        if close:
            where = f" (in {source})" if source else ""
            raise ConfigError(f"unknown setting; did you mean {close[0]!r}?{where}", key=_dotted(key, sibling))


def _dotted(parent: str, key: object) -> str:
    return f"{parent}.{key}" if parent else str(key)
