"""Who an HTTP caller is: the `Authenticator` seam, the `Grant` it hands out, and its registry.

Every scheme of ``toolscout.auth`` (static ``tokens``, ``oauth`` access tokens) is one
`Authenticator` built by the factory registered under its section's key, with the `SchemeSettings`
model of that section (`register_authenticator`). The gateway asks them in their rank's order; the
first that recognises the credentials decides.
Everything downstream (sessions, the session cap and rate, the page, ``/metrics``) reads only the
`Grant`, never a scheme's settings.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, Self, cast

from pydantic import BaseModel, ConfigDict, StrictBool, field_validator
from starlette.routing import BaseRoute

from ..._scope import Scope

__all__ = [
    "Authenticator",
    "AuthenticatorFactory",
    "Credentials",
    "Grant",
    "GrantRule",
    "Refusal",
    "GRANT_KEY",
    "Scheme",
    "SchemeSettings",
    "authenticator_for",
    "grant_of",
    "register_authenticator",
    "registered_schemes",
]

LABEL_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""What a configured grant's name may be."""


class GrantRule(BaseModel):
    """What a grant may reach; every scheme's grant settings extend it."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    servers: tuple[str, ...] | None = None
    """Upstream servers whose every tool the grant may use (exact server names)."""
    tools: tuple[str, ...] | None = None
    """Further tool names or globs over namespaced names (``memory__read_*``)."""
    deny: tuple[str, ...] = ()
    """Tool names or globs refused even when `servers` or `tools` allow them."""
    admin: StrictBool = False
    """May read ``/metrics`` (every client's traffic, every upstream's name) and every caller's activity on the
    page; its tools stay those of `servers` and `tools` (``servers: []`` for a scraper that calls none)."""

    @field_validator("servers", "tools", "deny")
    @classmethod
    def _no_blank_patterns(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if value is not None and any(not item.strip() for item in value):
            raise ValueError("names must not be blank")
        return value

    def scope(self) -> Scope:
        """The `Scope` this grant gives a session: its servers and tools (the union), less `deny`."""
        return Scope.select(servers=self.servers, tools=self.tools, deny=self.deny)

    def grant(self, label: str, *, subject: str | None = None, issuer: str | None = None) -> Grant:
        """The `Grant` of a caller this rule lets in, named `label`."""
        return Grant(
            label=label, scope=self.scope(), servers=self.servers, admin=self.admin, subject=subject, issuer=issuer
        )


@dataclass(frozen=True, slots=True)
class Credentials:
    """What one HTTP request offers to prove who sent it."""

    bearer: str | None = field(repr=False)
    """The token of an ``Authorization: Bearer ...`` header, None without one."""
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Every request header (lower-case names), for schemes that read others."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Grant:
    """Who a caller is and what it may reach: the one answer every part of the gateway reads."""

    label: str
    """The caller's name in session ids, logs, caps and the activity log. Two callers never share one: a
    static grant's name, ``oauth/<subject>`` for an access token."""
    scope: Scope
    """The tools its sessions may see, find, describe and call."""
    servers: tuple[str, ...] | None = None
    """The servers the grant holds whole (the page shows their repairs), None when it names none."""
    admin: bool = False
    """May read ``/metrics`` and every caller's activity."""
    subject: str | None = None
    """The identity provider's subject, for an access token."""
    issuer: str | None = None
    """The token's issuer, for an access token."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Refusal:
    """Why credentials were refused; becomes the HTTP answer (RFC 6750 §3)."""

    status: Literal[401, 403, 503] = 401
    """401: no valid credentials; 403: valid ones that reach nothing here; 503: they cannot be checked now."""
    error: Literal["invalid_token", "insufficient_scope", "temporarily_unavailable"] = "invalid_token"
    """The RFC 6750 error code (``temporarily_unavailable`` with 503)."""
    description: str = "Authentication required"
    """What went wrong, for the client's developer (never a secret, never the catalog)."""
    scope: str | None = None
    """For ``insufficient_scope``: the OAuth scopes that would let the caller in."""


class Authenticator(Protocol):
    """One way to tell who sent a request (a `register_authenticator` plug-in point).

    Contract:
        - `authenticate` gets the request's `Credentials` and returns the caller's `Grant` (its label
          and `Scope`), a `Refusal` when the credentials are of this scheme but not good (expired,
          forged, for another audience, or reaching nothing here), or None when they are not of this
          scheme at all (no bearer token, or one this scheme does not issue), so the next scheme is asked.
        - It never raises for bad credentials; it may take network time (a key fetch) but bounds it.
        - Labels are stable for one caller across requests and replicas (sessions are keyed by them)
          and distinct between callers; they contain no ``:`` and no secret.
        - It is called from the event loop, concurrently.
    """

    async def authenticate(self, credentials: Credentials) -> Grant | Refusal | None:
        """The caller's grant, a refusal, or None when `credentials` are not this scheme's."""
        ...

    @property
    def challenge(self) -> Mapping[str, str]:
        """Extra ``WWW-Authenticate`` parameters for a refused request (empty when it has none)."""
        ...

    @property
    def routes(self) -> Sequence[BaseRoute]:
        """HTTP routes the scheme serves without credentials (discovery documents); usually none."""
        ...


AuthenticatorFactory = Callable[[Any], Authenticator]
"""Builds an authenticator from its section of ``toolscout.auth`` (a validated settings model)."""


class SchemeSettings:
    """What the settings model of a scheme's section tells the rest of the config (mixed into that model).

    The defaults suit a scheme without grants or secrets of its own.
    """

    def grant_rules(self) -> Iterator[tuple[str, GrantRule]]:
        """Every grant of the section by its dotted key within it (``ci``, ``grants.readers``).

        Server names in them are resolved like every other (`with_grant_rules` takes them back).
        """
        return iter(())

    def with_grant_rules(self, rules: Mapping[str, GrantRule]) -> Self:
        """A copy with the grants `grant_rules` named replaced by `rules` (same keys)."""
        return self

    def secrets(self) -> list[str]:
        """The values no log or error may show."""
        return []


@dataclass(frozen=True, slots=True)
class Scheme:
    """One registered scheme: its section's key and model, and how to build its authenticator."""

    key: str
    factory: AuthenticatorFactory
    settings: type[SchemeSettings]
    rank: int


_SCHEMES: dict[str, Scheme] = {}


def register_authenticator(
    key: str, factory: AuthenticatorFactory, *, settings: type[BaseModel], rank: int = 100
) -> None:
    """Build the authenticator of ``toolscout.auth.<key>`` with `factory` when that section is set.

    Args:
        key: The section's key in ``toolscout.auth``.
        factory: Builds the authenticator from the validated section.
        settings: The section's pydantic model: `AuthSettings` validates and documents the section with it.
            The methods of `SchemeSettings` it defines (``secrets``: values no log or error may show;
            ``grant_rules``/``with_grant_rules``: grants whose server names are resolved) are used, the
            others answer nothing.
        rank: Schemes are asked by rank, lowest first (static tokens 0, OAuth 10), then by key.
    """
    if not issubclass(settings, SchemeSettings):  # a plug-in's model: SchemeSettings fills in what it lacks
        namespace = {"__module__": settings.__module__, "__doc__": settings.__doc__}
        settings = type(settings.__name__, (settings, SchemeSettings), namespace)
    _SCHEMES[key] = Scheme(key, factory, cast(type[SchemeSettings], settings), rank)


def registered_schemes() -> list[Scheme]:
    """Every registered scheme, in the order they are asked."""
    return sorted(_SCHEMES.values(), key=lambda scheme: (scheme.rank, scheme.key))


def authenticator_for(sections: Sequence[tuple[str, object]]) -> Authenticator:
    """One authenticator asking each configured section's, in order (see `AuthSettings.sections`)."""
    chain: list[Authenticator] = []
    for key, section in sections:
        scheme = _SCHEMES.get(key)
        if scheme is None:
            raise LookupError(f"no authenticator is registered for toolscout.auth.{key}")
        chain.append(scheme.factory(section))
    return _Chain(tuple(chain))


GRANT_KEY = "toolscout.grant"
"""Where the ASGI scope of an authenticated request holds its `Grant`."""


def grant_of(scope: Mapping[str, Any]) -> Grant | None:
    """The `Grant` an ASGI request scope was authenticated with, None without one."""
    grant = scope.get(GRANT_KEY)
    return grant if isinstance(grant, Grant) else None


class _Chain:
    def __init__(self, members: tuple[Authenticator, ...]) -> None:
        self._members = members

    async def authenticate(self, credentials: Credentials) -> Grant | Refusal | None:
        for member in self._members:
            answer = await member.authenticate(credentials)
            if answer is not None:
                return answer
        return None

    @property
    def challenge(self) -> Mapping[str, str]:
        merged: dict[str, str] = {}
        for member in self._members:
            merged.update(member.challenge)
        return merged

    @property
    def routes(self) -> Sequence[BaseRoute]:
        return [route for member in self._members for route in member.routes]
