"""``toolscout.auth``: who may call the HTTP gateway, by static bearer tokens or OAuth access tokens.

```json
"toolscout": {"auth": {"tokens": {
  "ci":    {"token": "${CI_TOKEN}", "servers": ["time", "git"]},
  "alice": {"token": "${ALICE_TOKEN}", "tools": ["memory__read_*"], "deny": ["git__git_reset"]},
  "prometheus": {"token": "${SCRAPE_TOKEN}", "servers": [], "admin": true}
}}}
```

The key (``ci``, ``alice``) names the grant in logs and sessions; the secret itself is the
``token`` value and is never logged. A grant with neither ``servers`` nor ``tools`` sees
every tool. Every HTTP answer covers the caller's grant only (see `toolscout.gateway._http._viewers`);
``/metrics`` answers ``admin`` grants alone. ``oauth`` (`OAuthSettings`) accepts access tokens an
identity provider signs instead, or as well. This module is the whole scheme: its settings
(`StaticTokenSettings`), its `Authenticator` and their registration; a missing or unknown token gets a
401 that says nothing about the catalog.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterator, Mapping, Sequence
from typing import Protocol

from mcp.server.auth.provider import AccessToken
from pydantic import ConfigDict, Field, RootModel, SecretStr, field_validator, model_validator
from starlette.routing import BaseRoute

from .._grants import LABEL_RE, Credentials, Grant, GrantRule, Refusal, SchemeSettings, register_authenticator

__all__ = ["StaticTokenSettings", "StaticTokenVerifier", "StaticTokens", "TokenGrant"]

MIN_TOKEN_CHARS = 16


class TokenGrant(GrantRule):
    """One bearer token and what it may reach."""

    model_config = ConfigDict(title="One token")

    token: SecretStr
    """The secret the client sends as ``Authorization: Bearer ...`` (use ``${VAR}``)."""

    @field_validator("token")
    @classmethod
    def _long_enough(cls, value: SecretStr) -> SecretStr:
        if len(value.get_secret_value()) < MIN_TOKEN_CHARS:
            raise ValueError(f"use a random token of at least {MIN_TOKEN_CHARS} characters")
        return value


class StaticTokenSettings(RootModel[dict[str, TokenGrant]], SchemeSettings):
    """Static bearer tokens: grants by name."""

    root: dict[str, TokenGrant] = Field(min_length=1)

    @model_validator(mode="after")
    def _distinct(self) -> StaticTokenSettings:
        for label in self.root:
            if not LABEL_RE.fullmatch(label):
                raise ValueError(f"token name {label!r}: use 1-64 letters, digits, '.', '-' or '_'")
        secrets = self.secrets()
        if len(set(secrets)) != len(secrets):
            raise ValueError("two grants use the same token; give each its own")
        return self

    def __getitem__(self, label: str) -> TokenGrant:
        """The grant named `label`."""
        return self.root[label]

    def grant_rules(self) -> Iterator[tuple[str, GrantRule]]:
        """Every grant by its name."""
        yield from self.root.items()

    def with_grant_rules(self, rules: Mapping[str, GrantRule]) -> StaticTokenSettings:
        """A copy with every grant replaced by the one of the same name in `rules`."""
        grants = {label: rules[label] for label in self.root}
        return self.model_copy(update={"root": grants})

    def secrets(self) -> list[str]:
        """The tokens."""
        return [grant.token.get_secret_value() for grant in self.root.values()]


class _Sections(Protocol):
    def section(self, key: str) -> SchemeSettings | None: ...


class StaticTokenVerifier:
    """The SDK `TokenVerifier` for configured tokens: the grant's name becomes the client id."""

    def __init__(self, settings: _Sections) -> None:
        """Index the static token grants of `settings` (an `AuthSettings`)."""
        tokens = settings.section("tokens")
        self._table = _TokenTable(tokens.root if isinstance(tokens, StaticTokenSettings) else {})

    async def verify_token(self, token: str) -> AccessToken | None:
        """Return an access token naming the grant, or None for an unknown token."""
        found = self._table.label_of(token)
        if found is None:
            return None
        return AccessToken(token="[redacted]", client_id=found, scopes=[])


class StaticTokens:
    """The `Authenticator` of ``toolscout.auth.tokens``: a configured token gets its grant, named by its key."""

    def __init__(self, tokens: Mapping[str, TokenGrant]) -> None:
        """Index the grants of `tokens`."""
        self._table = _TokenTable(tokens)
        self._rules = dict(tokens)

    async def authenticate(self, credentials: Credentials) -> Grant | Refusal | None:
        """The grant of a configured token; None for any other (another scheme may know it)."""
        if credentials.bearer is None:
            return None
        label = self._table.label_of(credentials.bearer)
        if label is None:
            return None
        return self._rules[label].grant(label)

    @property
    def challenge(self) -> Mapping[str, str]:
        """None: static tokens are handed out by hand."""
        return {}

    @property
    def routes(self) -> Sequence[BaseRoute]:
        """None."""
        return ()


class _TokenTable:
    def __init__(self, tokens: Mapping[str, TokenGrant]) -> None:
        self._grants = [(label, grant.token.get_secret_value().encode()) for label, grant in tokens.items()]

    def label_of(self, token: str) -> str | None:
        offered = token.encode()
        found: str | None = None
        for label, secret in self._grants:
            # Compare against every grant so the time taken does not say which one nearly matched.
            if hmac.compare_digest(offered, secret):
                found = label
        return found


def _authenticator(settings: StaticTokenSettings) -> StaticTokens:
    return StaticTokens(settings.root)


register_authenticator("tokens", _authenticator, settings=StaticTokenSettings, rank=0)
