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
every tool. Every HTTP answer covers the caller's grant only (see `toolscout.gateway._viewers`);
``/metrics`` answers ``admin`` grants alone. ``oauth`` (`OAuthSettings`) accepts access tokens an
identity provider signs instead, or as well. Each section is one registered `Authenticator`
(`toolscout.gateway._identity`); a missing or unknown token gets a 401 that says nothing about the catalog.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterator, Mapping, Sequence

from mcp.server.auth.provider import AccessToken
from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator
from starlette.routing import BaseRoute

from ._grants import LABEL_RE, Credentials, Grant, GrantRule, Refusal, register_authenticator
from ._oauth import OAuthSettings

__all__ = ["AuthSettings", "StaticTokenVerifier", "StaticTokens", "TokenGrant"]

MIN_TOKEN_CHARS = 16


class TokenGrant(GrantRule):
    """One bearer token and what it may reach."""

    token: SecretStr
    """The secret the client sends as ``Authorization: Bearer ...`` (use ``${VAR}``)."""

    @field_validator("token")
    @classmethod
    def _long_enough(cls, value: SecretStr) -> SecretStr:
        if len(value.get_secret_value()) < MIN_TOKEN_CHARS:
            raise ValueError(f"use a random token of at least {MIN_TOKEN_CHARS} characters")
        return value


class AuthSettings(BaseModel):
    """The ``toolscout.auth`` section: one or more schemes, asked in this order."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    tokens: dict[str, TokenGrant] | None = Field(default=None, min_length=1)
    """Static bearer tokens: grants by name."""
    oauth: OAuthSettings | None = None
    """OAuth 2.1 access tokens (JWTs) an identity provider signs, mapped to grants by their scopes or claims."""

    @field_validator("tokens")
    @classmethod
    def _distinct(cls, value: dict[str, TokenGrant] | None) -> dict[str, TokenGrant] | None:
        if value is None:
            return value
        for label in value:
            if not LABEL_RE.fullmatch(label):
                raise ValueError(f"token name {label!r}: use 1-64 letters, digits, '.', '-' or '_'")
        secrets = [grant.token.get_secret_value() for grant in value.values()]
        if len(set(secrets)) != len(secrets):
            raise ValueError("two grants use the same token; give each its own")
        return value

    @model_validator(mode="after")
    def _some_scheme(self) -> AuthSettings:
        if not any(section is not None for _, section in self.sections()):
            raise ValueError("give 'tokens', 'oauth', or both")
        return self

    def sections(self) -> list[tuple[str, object]]:
        """The configured schemes, ``(key, settings)``, in the order they are asked."""
        return [(key, getattr(self, key)) for key in type(self).model_fields if getattr(self, key) is not None]

    def grant_rules(self) -> Iterator[tuple[str, GrantRule]]:
        """Every configured grant by its dotted key (``tokens.ci``, ``oauth.grants.readers``)."""
        for label, grant in (self.tokens or {}).items():
            yield f"tokens.{label}", grant
        for label, rule in (self.oauth.grants if self.oauth else {}).items():
            yield f"oauth.grants.{label}", rule

    def with_grant_rules(self, rules: Mapping[str, GrantRule]) -> AuthSettings:
        """A copy with the grants `grant_rules` named replaced by `rules` (same keys)."""
        update: dict[str, object] = {}
        if self.tokens is not None:
            update["tokens"] = {label: rules[f"tokens.{label}"] for label in self.tokens}
        if self.oauth is not None:
            grants = {label: rules[f"oauth.grants.{label}"] for label in self.oauth.grants}
            update["oauth"] = self.oauth.model_copy(update={"grants": grants})
        return self.model_copy(update=update)

    def secrets(self) -> list[str]:
        """The values no log or error may show (the static tokens)."""
        return [grant.token.get_secret_value() for grant in (self.tokens or {}).values()]


class StaticTokenVerifier:
    """The SDK `TokenVerifier` for configured tokens: the grant's name becomes the client id."""

    def __init__(self, settings: AuthSettings) -> None:
        """Index the grants of `settings`."""
        self._grants = [
            (label, grant.token.get_secret_value().encode()) for label, grant in (settings.tokens or {}).items()
        ]

    async def verify_token(self, token: str) -> AccessToken | None:
        """Return an access token naming the grant, or None for an unknown token."""
        offered = token.encode()
        found: str | None = None
        for label, secret in self._grants:
            # Compare against every grant so the time taken does not say which one nearly matched.
            if hmac.compare_digest(offered, secret):
                found = label
        if found is None:
            return None
        return AccessToken(token="[redacted]", client_id=found, scopes=[])


class StaticTokens:
    """The `Authenticator` of ``toolscout.auth.tokens``: a configured token gets its grant, named by its key."""

    def __init__(self, tokens: Mapping[str, TokenGrant]) -> None:
        """Index the grants of `tokens`."""
        self._verifier = StaticTokenVerifier(AuthSettings(tokens=dict(tokens)))
        self._rules = dict(tokens)

    async def authenticate(self, credentials: Credentials) -> Grant | Refusal | None:
        """The grant of a configured token; None for any other (another scheme may know it)."""
        if credentials.bearer is None:
            return None
        access = await self._verifier.verify_token(credentials.bearer)
        if access is None:
            return None
        return self._rules[access.client_id].grant(access.client_id)

    @property
    def challenge(self) -> Mapping[str, str]:
        """None: static tokens are handed out by hand."""
        return {}

    @property
    def routes(self) -> Sequence[BaseRoute]:
        """None."""
        return ()


register_authenticator("tokens", StaticTokens)
