"""Bearer tokens for the HTTP gateway, each granting a `Scope` of servers and tools.

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
``/metrics`` answers ``admin`` grants alone. Requests are checked by the SDK's bearer middleware
with `StaticTokenVerifier`; a missing or unknown token gets a 401 that says nothing about the catalog.
"""

from __future__ import annotations

import hmac
import re

from mcp.server.auth.provider import AccessToken
from pydantic import BaseModel, ConfigDict, Field, SecretStr, StrictBool, field_validator

from .._scope import Scope

__all__ = ["AuthSettings", "StaticTokenVerifier", "TokenGrant"]

_LABEL_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
MIN_TOKEN_CHARS = 16


class TokenGrant(BaseModel):
    """One bearer token and what it may reach."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    token: SecretStr
    """The secret the client sends as ``Authorization: Bearer ...`` (use ``${VAR}``)."""
    servers: tuple[str, ...] | None = None
    """Upstream servers whose every tool the token may use (exact server names)."""
    tools: tuple[str, ...] | None = None
    """Further tool names or globs over namespaced names (``memory__read_*``)."""
    deny: tuple[str, ...] = ()
    """Tool names or globs refused even when `servers` or `tools` allow them."""
    admin: StrictBool = False
    """May read ``/metrics`` (every client's traffic, every upstream's name) and every token's activity on the
    page; its tools stay those of `servers` and `tools` (``servers: []`` for a scraper that calls none)."""

    @field_validator("token")
    @classmethod
    def _long_enough(cls, value: SecretStr) -> SecretStr:
        if len(value.get_secret_value()) < MIN_TOKEN_CHARS:
            raise ValueError(f"use a random token of at least {MIN_TOKEN_CHARS} characters")
        return value

    @field_validator("servers", "tools", "deny")
    @classmethod
    def _no_blank_patterns(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if value is not None and any(not item.strip() for item in value):
            raise ValueError("names must not be blank")
        return value

    def scope(self) -> Scope:
        """The `Scope` this grant gives a session: its servers and tools (the union), less `deny`."""
        return Scope.select(servers=self.servers, tools=self.tools, deny=self.deny)


class AuthSettings(BaseModel):
    """The ``toolscout.auth`` section."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    tokens: dict[str, TokenGrant] = Field(min_length=1)
    """Grants by name."""

    @field_validator("tokens")
    @classmethod
    def _distinct(cls, value: dict[str, TokenGrant]) -> dict[str, TokenGrant]:
        for label in value:
            if not _LABEL_RE.fullmatch(label):
                raise ValueError(f"token name {label!r}: use 1-64 letters, digits, '.', '-' or '_'")
        secrets = [grant.token.get_secret_value() for grant in value.values()]
        if len(set(secrets)) != len(secrets):
            raise ValueError("two grants use the same token; give each its own")
        return value


class StaticTokenVerifier:
    """The SDK `TokenVerifier` for configured tokens: the grant's name becomes the client id."""

    def __init__(self, settings: AuthSettings) -> None:
        """Index the grants of `settings`."""
        self._grants = [(label, grant.token.get_secret_value().encode()) for label, grant in settings.tokens.items()]

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
