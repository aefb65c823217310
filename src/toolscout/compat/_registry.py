"""The translators of other systems' config blocks, and `translate_config`, which runs them all."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from .._errors import ConfigError
from .._settings import ScoutSettings
from ._base import ConfigTranslator, KeyNote, Translated

__all__ = ["Translation", "register_translator", "translate_config", "translators"]

_TRANSLATORS: dict[str, ConfigTranslator] = {}


def register_translator(translator: ConfigTranslator) -> None:
    """Read `translator`'s system's blocks in every config from now on (replacing one of the same name)."""
    _TRANSLATORS[translator.name] = translator


def translators() -> tuple[ConfigTranslator, ...]:
    """The registered translators, in registration order."""
    return tuple(_TRANSLATORS.values())


@dataclass(frozen=True, slots=True, kw_only=True)
class Translation:
    """Every other system's block of one config file, as one ``toolscout`` section."""

    section: dict[str, object]
    """The equivalent ``toolscout`` keys (nested tables as dicts)."""
    blocks: tuple[Translated, ...]
    """Each translated block, with a note per key."""

    @property
    def notes(self) -> tuple[KeyNote, ...]:
        """Every note of every block, in order."""
        return tuple(note for block in self.blocks for note in block.notes)

    def origin(self, key: str) -> str:
        """Where toolscout `key` came from: ``tools.tool_search.enabled (Hermes Agent)``."""
        for block in self.blocks:
            if key in block.origins:
                return f"{block.origins[key]} ({block.system})"
        return key

    def merged_with(self, explicit: Mapping[str, object], *, key: str, source: str | None = None) -> dict[str, object]:
        """This section with the keys of an explicit ``toolscout`` section (named `key`, read from `source`) added.

        Raises:
            ConfigError: Both set a key, to different values.
        """
        merged = dict(self.section)
        where = f" (in {source})" if source else ""
        for name, value in explicit.items():
            if name in merged and merged[name] != value:
                raise ConfigError(
                    f"also set by {self.origin(name)} to {_shown(merged[name])}: keep one of the two{where}",
                    key=f"{key}.{name}",
                )
            merged[name] = value
        return merged

    def scout_settings(self) -> ScoutSettings:
        """The library settings of this section (environment overrides applied as usual).

        Raises:
            ConfigError: A translated value breaks a toolscout limit (named as a ``toolscout`` key).
        """
        return ScoutSettings.from_mapping(self.section, prefix="toolscout")


def translate_config(document: Mapping[str, object], *, source: str | None = None) -> Translation:
    """Translate every other system's tool-search block in `document` into one ``toolscout`` section.

    Args:
        document: A decoded config file (JSON, YAML or TOML).
        source: The file it came from, named in errors.

    Raises:
        ConfigError: A block has an out-of-range value, a wrong type or an unknown key (the key, the
            range and `source` are named), or two blocks set one toolscout key to different values.
    """
    blocks: list[Translated] = []
    section: dict[str, object] = {}
    for translator in _TRANSLATORS.values():
        if not any(root in document for root in translator.roots):
            continue
        block = translator.translate(document, source=source)
        if block is None:
            continue
        for name, value in block.settings.items():
            if name in section and section[name] != value:
                earlier = Translation(section=section, blocks=tuple(blocks)).origin(name)
                where = f" (in {source})" if source else ""
                raise ConfigError(
                    f"sets toolscout.{name} to {_shown(value)}, but {earlier} sets it to {_shown(section[name])}: "
                    f"keep one{where}",
                    key=block.origins[name],
                )
            section[name] = value
        blocks.append(block)
    return Translation(section=section, blocks=tuple(blocks))


def _shown(value: object) -> str:
    return json.dumps(value, default=str)
