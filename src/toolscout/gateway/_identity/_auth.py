"""``toolscout.auth``: who may call the HTTP gateway, one section per registered scheme.

Each scheme's module declares the model of its section with its registration (`register_authenticator`).
`AuthSettings` validates the section with the schemes registered when it is validated (`RegisteredSections`):
the built-in ones (every module of `_schemes`, imported here first: static ``tokens`` and ``oauth`` access
tokens), and those of installed plug-ins, loaded when the section names a key not registered yet. It validates
each section with its scheme's model, so an error names its key (``toolscout.auth.tokens.ci.token``), a
misspelt key gets the close one, and it gathers what the rest of the config needs from every section: its
grants (server names in them are resolved) and its secrets (never logged).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Self

from pydantic import model_validator

from ..._plugins import RegisteredSections, SectionsPoint, provide_sections, sections_model
from . import _schemes  # noqa: F401  the built-in schemes register themselves before AuthSettings is made
from ._grants import GrantRule, SchemeSettings, registered_schemes

__all__ = ["AuthSettings"]


provide_sections("auth", lambda: {scheme.key: scheme.settings for scheme in registered_schemes()})


class AuthSections(RegisteredSections):
    """The ``toolscout.auth`` section: one or more schemes, asked in their rank's order (static tokens first)."""

    point: ClassVar[SectionsPoint] = "auth"

    @model_validator(mode="after")
    def _some_scheme(self) -> Self:
        if not self.sections():
            keys = [repr(key) for key in type(self).model_fields]
            raise ValueError(f"give {', '.join(keys)}, or {'both' if len(keys) == 2 else 'several'}")
        return self

    def section(self, key: str) -> SchemeSettings | None:
        """The settings of scheme `key`, None when that section is not set."""
        value = super().section(key)
        return value if isinstance(value, SchemeSettings) else None

    def sections(self) -> list[tuple[str, SchemeSettings]]:
        """The configured schemes, ``(key, settings)``, in the order they are asked."""
        found = [(scheme.key, self.section(scheme.key)) for scheme in registered_schemes()]
        return [(key, section) for key, section in found if section is not None]

    def grant_rules(self) -> Iterator[tuple[str, GrantRule]]:
        """Every configured grant by its dotted key (``tokens.ci``, ``oauth.grants.readers``)."""
        for key, section in self.sections():
            for name, rule in section.grant_rules():
                yield f"{key}.{name}", rule

    def with_grant_rules(self, rules: Mapping[str, GrantRule]) -> Self:
        """A copy with the grants `grant_rules` named replaced by `rules` (same keys)."""
        update: dict[str, Any] = {}
        for key, section in self.sections():
            prefix = f"{key}."
            own = {name.removeprefix(prefix): rule for name, rule in rules.items() if name.startswith(prefix)}
            update[key] = section.with_grant_rules(own)
        return self.model_copy(update=update)

    def secrets(self) -> list[str]:
        """The values no log or error may show (the static tokens)."""
        return [secret for _, section in self.sections() for secret in section.secrets()]


if TYPE_CHECKING:
    AuthSettings = AuthSections
else:
    AuthSettings = sections_model(AuthSections)  # the built-in schemes' fields, for the reference and the docs
