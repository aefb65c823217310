"""Shared pieces of reading settings objects from config mappings."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import fields
from typing import Any, TypeVar

from ._errors import ConfigError

__all__ = ["check", "is_int", "settings_from_mapping"]

SettingsT = TypeVar("SettingsT")


def is_int(value: object) -> bool:
    """True for an int that is not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def check(ok: bool, key: str, message: str) -> None:
    """Raise `ConfigError` for `key` with `message` unless `ok`."""
    if not ok:
        raise ConfigError(message, key=key)


def settings_from_mapping(
    cls: Callable[..., SettingsT],
    config: Mapping[str, object],
    *,
    prefix: str,
    convert: Callable[[str, object], object],
) -> SettingsT:
    """Build the dataclass `cls` from `config`, naming ``prefix.key`` in every error.

    `convert(key, value)` turns one raw value into the field's form (lists into tuples, ...);
    the dataclass's own ``__post_init__`` checks the result.

    Raises:
        ConfigError: An unknown key, or a value `cls` rejects.
    """
    known = {item.name for item in fields(cls)}  # type: ignore[arg-type]  # cls is a dataclass
    values: dict[str, Any] = {}
    for key, value in config.items():
        if key not in known:
            raise ConfigError(f"unknown setting; known settings: {', '.join(sorted(known))}", key=f"{prefix}.{key}")
        values[key] = convert(key, value)
    try:
        return cls(**values)
    except ConfigError as exc:
        raise ConfigError(exc.detail, key=f"{prefix}.{exc.key}") from None
