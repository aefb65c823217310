"""Read a config file into a document: JSON, TOML (``.toml``) or YAML (``.yaml``, ``.yml``).

Errors name the file and where it broke; a key written twice in one object is an error in every
format (JSON and YAML parsers would otherwise keep the last one silently). `warn_if_others_may_write`
names a config file its group or other users may change.
"""

from __future__ import annotations

import json
import logging
import stat
import tomllib
from pathlib import Path
from typing import Any, cast

import yaml

from ..._errors import ConfigError

__all__ = ["read_document", "warn_if_others_may_write"]

logger = logging.getLogger("toolscout.gateway")

_YAML_SUFFIXES = (".yaml", ".yml")


def read_document(path: str | Path) -> dict[str, Any]:
    """The decoded top-level object of the config file at `path`.

    Raises:
        ConfigError: The file cannot be read or parsed, repeats a key, or is not an object; `key` is the path.
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(f"cannot read the config file: {reason}", key=str(file)) from None
    suffix = file.suffix.lower()
    data: object
    try:
        if suffix == ".toml":
            data = tomllib.loads(text)
        elif suffix in _YAML_SUFFIXES:
            data = _load_yaml(text)
        else:
            data = json.loads(text, object_pairs_hook=_reject_duplicate_keys)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"invalid TOML: {exc}", key=str(file)) from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"invalid YAML: {_yaml_problem(exc)}", key=str(file)) from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}", key=str(file)) from None
    except _DuplicateKeyError as exc:
        raise ConfigError(f"key {exc.args[0]!r} appears twice in one object; keep one", key=str(file)) from None
    if not isinstance(data, dict):
        raise ConfigError('the config must be an object with an "mcpServers" key', key=str(file))
    return data


def warn_if_others_may_write(path: Path) -> None:
    """Log one warning when the file at `path` is writable by its group or by others.

    A config file names the commands the gateway runs and holds its tokens and secrets (or the ``${VAR}`` names that
    bring them in), so whoever may write it may run anything as this user.
    """
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return
    writers = [who for bit, who in ((stat.S_IWGRP, "its group"), (stat.S_IWOTH, "other users")) if mode & bit]
    if writers:
        logger.warning(
            "config file %s is writable by %s (mode %04o), who could make the gateway run any command as you: "
            "run chmod 600 %s",
            path,
            " and ".join(writers),
            mode,
            path,
        )


class _DuplicateKeyError(ValueError):
    pass


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKeyError(key)
        out[key] = value
    return out


def _load_yaml(text: str) -> object:
    """Parse YAML safely (plain data only), refusing a key written twice in one mapping."""
    stack = [yaml.compose(text, Loader=yaml.SafeLoader)]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            seen: set[object] = set()
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    if key.value in seen:
                        raise _DuplicateKeyError(key.value)
                    seen.add(key.value)
                stack.append(value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return cast(object, yaml.safe_load(text))


def _yaml_problem(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    return f"{problem} at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else str(problem)
