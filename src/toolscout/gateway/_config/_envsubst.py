"""``${VAR}`` expansion in config values, with the error naming the config key.

A value taken from the environment is registered with `add_secrets`, so no error, log line or page shows
it, when it is a credential by its name: the variable's, or the config key's it is written under (see
`toolscout._redact.names_a_secret` for the rule and why others stay readable).
"""

from __future__ import annotations

import os
import re

from ..._errors import ConfigError
from ..._redact import add_secrets, names_a_secret

__all__ = ["expand_env", "required_variables"]

_VAR_RE = re.compile(r"\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def expand_env(value: object, key: str) -> object:
    """Expand ``${VAR}`` / ``${VAR:-default}`` in every string of a decoded document.

    ``${VAR:-default}`` uses the default when VAR is unset or empty; ``$${`` writes a literal
    ``${``. Containers are walked; other values are returned as they are. Values taken from the
    environment under a secret's name (the variable's or the key's, `names_a_secret`) are registered as
    secrets (`add_secrets`).

    Args:
        value: A decoded JSON/TOML value.
        key: Its dotted path, named by the error.

    Raises:
        ConfigError: A variable without a default is not set; `key` is the string's path.
    """
    if isinstance(value, str):
        return _expand_string(value, key)
    if isinstance(value, list):
        return [expand_env(item, f"{key}[{index}]") for index, item in enumerate(value)]
    if isinstance(value, dict):
        return {name: expand_env(item, f"{key}.{name}") for name, item in value.items()}
    return value


def _expand_string(text: str, key: str) -> str:
    def substitute(match: re.Match[str]) -> str:
        if match.group(0) == "$${":
            return "${"
        name, default = match.group(1), match.group(2)
        value = os.environ.get(name)
        if value is not None and (value or default is None):
            if names_a_secret(name) or names_a_secret(key.rpartition(".")[2]):
                add_secrets([value])
            return value
        if default is not None:
            return default
        raise ConfigError(
            f"environment variable {name} is not set: export it, or write ${{{name}:-default}} to give a default",
            key=key,
        )

    return _VAR_RE.sub(substitute, text)


def required_variables(value: object) -> set[str]:
    """The variables the ``${VAR}`` references in `value`'s strings need: those written without a default."""
    if isinstance(value, str):
        return {match.group(1) for match in _VAR_RE.finditer(value) if match.group(1) and match.group(2) is None}
    if isinstance(value, list):
        return set().union(*(required_variables(item) for item in value))
    if isinstance(value, dict):
        return set().union(*(required_variables(item) for item in value.values()))
    return set()
