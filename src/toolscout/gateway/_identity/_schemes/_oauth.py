"""``toolscout.auth.oauth``: the HTTP gateway as an OAuth 2.1 resource server (the MCP authorization spec).

```json
"toolscout": {"auth": {"oauth": {
  "issuer": "https://login.example.com/",
  "jwks_uri": "https://login.example.com/.well-known/jwks.json",
  "resource": "https://tools.example.com/mcp",
  "grants": {
    "ops":     {"scopes": ["toolscout.admin"], "admin": true},
    "readers": {"scopes": ["toolscout.read"], "servers": ["time", "docs"]},
    "staff":   {"claims": {"groups": "staff"}, "tools": ["memory__read_*"]}
  }
}}}
```

A client sends an access token (a JWT) from the identity provider as ``Authorization: Bearer ...``.
The token is verified against the issuer's published keys (`JwksCache`): its signature, with an
algorithm from `OAuthSettings.algorithms` (never ``none``, never an HMAC one, so a public key
cannot be used as a shared secret), its issuer, its audience (this gateway's `resource`: a token
issued for another service is refused), its expiry and not-before time (within `leeway_s`). Its
scopes or claims then pick the first matching grant, in the order written. A valid token that
matches no grant gets ``403 insufficient_scope``. The caller is named ``oauth/<sub>``, so sessions,
caps and activity are per user whichever replica answers. The gateway publishes its Protected
Resource Metadata (RFC 9728) for clients to discover the issuer, and every ``401`` points to it.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Annotated, Any
from urllib.parse import urlsplit

import jwt
from mcp.server.auth.routes import build_resource_metadata_url, create_protected_resource_routes
from pydantic import AnyHttpUrl, BaseModel, ConfigDict, Field, field_validator, model_validator
from starlette.routing import BaseRoute, Route

from ...._validation import Finite
from .._grants import LABEL_RE, Credentials, Grant, GrantRule, Refusal, SchemeSettings, register_authenticator
from .._jwks import JwksCache, JwksUnavailable

__all__ = ["JwtAuthenticator", "OAuthGrant", "OAuthSettings"]

logger = logging.getLogger("toolscout.gateway")

ASYMMETRIC_ALGORITHMS = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES256K", "ES384", "ES512", "EdDSA"}
)
_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})
_JWT_SHAPE = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*")
_SUBJECT_SAFE = re.compile(r"[A-Za-z0-9_.@+|=-]{1,128}")


class OAuthGrant(GrantRule):
    """What an access token with these scopes and claims may reach (every condition must hold)."""

    model_config = ConfigDict(title="One OAuth grant")

    scopes: tuple[str, ...] = ()
    """OAuth scopes the token must carry, every one (none: any valid token matches, a default grant)."""
    claims: dict[str, str] = {}
    """Claims the token must carry: each equal to the value, or a list containing it (``{"groups": "staff"}``)."""

    def matches(self, scopes: frozenset[str], claims: Mapping[str, Any]) -> bool:
        """True when a token with `scopes` and `claims` meets every condition."""
        if not scopes.issuperset(self.scopes):
            return False
        for name, wanted in self.claims.items():
            value = claims.get(name)
            if not (value == wanted or (isinstance(value, list) and wanted in value)):
                return False
        return True


def _url(value: str, *, what: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise ValueError(f"{what} must be an https:// URL")
    if parts.scheme == "http" and parts.hostname not in _LOOPBACK:
        raise ValueError(f"{what} must use https:// (plain http only on loopback, for testing)")
    if parts.fragment:
        raise ValueError(f"{what} must not have a #fragment")
    return value


class OAuthSettings(BaseModel, SchemeSettings):
    """OAuth 2.1 access tokens (JWTs) an identity provider signs, mapped to grants by their scopes or claims.

    The ``toolscout.auth.oauth`` section: which issuer's access tokens the gateway accepts, and what they grant.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True, title="OAuth access tokens")

    issuer: str
    """The authorization server's issuer identifier, exactly as its tokens' ``iss`` claim spells it; listed in the
    protected resource metadata for clients to discover."""
    jwks_uri: str
    """Where the issuer publishes its signing keys (its metadata's ``jwks_uri``)."""
    resource: str
    """This gateway's public ``/mcp`` URL as clients reach it (behind a proxy: the proxy's), e.g.
    ``https://tools.example.com/mcp``: the resource clients ask tokens for and the default audience."""
    audience: tuple[str, ...] | None = Field(default=None, min_length=1)
    """The ``aud`` values accepted (one must appear in the token); default: `resource` alone."""
    algorithms: tuple[str, ...] = Field(default=("RS256", "PS256", "ES256", "EdDSA"), min_length=1)
    """Signature algorithms accepted, asymmetric ones only (``none`` and ``HS*`` are refused)."""
    leeway_s: Annotated[float, Finite, Field(ge=0, le=300)] = 60.0
    """Clock skew allowed when checking ``exp`` and ``nbf``, in seconds."""
    scope_claim: str = Field(default="scope", min_length=1)
    """The claim holding the token's scopes: a space-separated string (``scope``) or a list (``scp``)."""
    grants: dict[str, OAuthGrant] = Field(min_length=1)
    """Grants by name, tried in the order written: the first whose scopes and claims the token has applies."""
    jwks_max_age_s: Annotated[float, Finite, Field(ge=1, le=86_400)] = 3600.0
    """Seconds the issuer's keys are kept before they are fetched again."""
    jwks_refetch_min_s: Annotated[float, Finite, Field(ge=0, le=3600)] = 30.0
    """A token signed by a key not in the set fetches the set again (a rotated key), at most once per this many
    seconds, so tokens with made-up key ids never turn into a stream of fetches."""
    jwks_timeout_s: Annotated[float, Finite, Field(gt=0, le=60)] = 5.0
    """Seconds one fetch of the keys may take in all (connecting and reading the whole body, however slowly it
    comes); a body past 1 MiB is refused as soon as it is. Requests whose key is already known never wait for a
    fetch: a refresh of known keys runs in the background."""
    resource_name: str | None = None
    """A name for this gateway in the protected resource metadata."""

    @field_validator("issuer")
    @classmethod
    def _issuer_url(cls, value: str) -> str:
        return _url(value, what="the issuer")

    @field_validator("jwks_uri")
    @classmethod
    def _jwks_url(cls, value: str) -> str:
        return _url(value, what="jwks_uri")

    @field_validator("resource")
    @classmethod
    def _resource_url(cls, value: str) -> str:
        return _url(value, what="the resource")

    @field_validator("algorithms")
    @classmethod
    def _asymmetric(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        allowed = ", ".join(sorted(ASYMMETRIC_ALGORITHMS))
        for name in value:
            if name not in ASYMMETRIC_ALGORITHMS:
                raise ValueError(
                    f"algorithm {name!r} is not accepted: use asymmetric ones ({allowed}); 'none' and HMAC (HS*) "
                    "would let anyone holding the public key sign tokens"
                )
        return value

    @field_validator("grants")
    @classmethod
    def _named(cls, value: dict[str, OAuthGrant]) -> dict[str, OAuthGrant]:
        for label in value:
            if not LABEL_RE.fullmatch(label):
                raise ValueError(f"grant name {label!r}: use 1-64 letters, digits, '.', '-' or '_'")
        return value

    @model_validator(mode="after")
    def _default_last(self) -> OAuthSettings:
        rules = list(self.grants.items())
        for index, (label, rule) in enumerate(rules[:-1]):
            if not rule.scopes and not rule.claims:
                later = ", ".join(name for name, _ in rules[index + 1 :])
                raise ValueError(f"grant {label!r} matches every token, so {later} would never apply: move it last")
        return self

    def grant_rules(self) -> Iterator[tuple[str, GrantRule]]:
        """Every grant by its key within the section (``grants.readers``)."""
        for label, rule in self.grants.items():
            yield f"grants.{label}", rule

    def with_grant_rules(self, rules: Mapping[str, GrantRule]) -> OAuthSettings:
        """A copy with every grant replaced by the one of the same key in `rules`."""
        return self.model_copy(update={"grants": {label: rules[f"grants.{label}"] for label in self.grants}})

    @property
    def audiences(self) -> tuple[str, ...]:
        """The accepted ``aud`` values."""
        return self.audience or (self.resource,)

    @property
    def scopes_supported(self) -> list[str]:
        """Every scope some grant asks for, in the order written."""
        return list(dict.fromkeys(scope for rule in self.grants.values() for scope in rule.scopes))


class JwtAuthenticator:
    """The `Authenticator` of ``toolscout.auth.oauth``: verifies JWT access tokens (module docs)."""

    def __init__(self, settings: OAuthSettings) -> None:
        """Accept the tokens `settings` describe."""
        self._settings = settings
        self._keys = JwksCache(
            settings.jwks_uri,
            max_age_s=settings.jwks_max_age_s,
            refetch_min_s=settings.jwks_refetch_min_s,
            timeout_s=settings.jwks_timeout_s,
        )
        self._metadata_url = str(build_resource_metadata_url(AnyHttpUrl(settings.resource)))

    async def authenticate(self, credentials: Credentials) -> Grant | Refusal | None:
        """The grant of a valid access token; None for a bearer token that is not a JWT."""
        token = credentials.bearer
        if token is None or not _JWT_SHAPE.fullmatch(token):
            return None
        settings = self._settings
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            return Refusal(description="The access token is not a well-formed JWT")
        alg = header.get("alg")
        if not isinstance(alg, str) or alg not in settings.algorithms:
            return Refusal(description=f"The token's signing algorithm {alg!r} is not accepted")
        kid = header.get("kid")
        try:
            key = await self._keys.key(kid if isinstance(kid, str) else None, alg)
        except JwksUnavailable:
            return Refusal(
                status=503,
                error="temporarily_unavailable",
                description="The issuer's signing keys could not be fetched; try again shortly",
            )
        if key is None:
            return Refusal(description="The token is signed with a key the issuer does not publish")
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key=key,
                algorithms=[alg],
                audience=list(settings.audiences),
                issuer=settings.issuer,
                leeway=settings.leeway_s,
                options={"require": ["exp", "iss", "aud", "sub"]},
            )
        except jwt.ExpiredSignatureError:
            return Refusal(description="The access token has expired")
        except jwt.ImmatureSignatureError:
            return Refusal(description="The access token is not valid yet")
        except jwt.InvalidAudienceError:
            return Refusal(description=f"The access token was not issued for this resource ({settings.resource})")
        except jwt.InvalidIssuerError:
            return Refusal(description="The access token comes from another issuer")
        except jwt.PyJWTError as exc:
            return Refusal(description=f"The access token is invalid: {exc}".replace('"', "'"))
        subject = claims.get("sub")
        if not isinstance(subject, str) or not subject:
            return Refusal(description="The access token names no subject")
        scopes = _scopes(claims.get(settings.scope_claim))
        for rule in settings.grants.values():
            if rule.matches(scopes, claims):
                return rule.grant(_label(subject), subject=subject, issuer=settings.issuer)
        return Refusal(
            status=403,
            error="insufficient_scope",
            description="The access token's scopes and claims match no grant of this gateway",
            scope=" ".join(settings.scopes_supported) or None,
        )

    @property
    def challenge(self) -> Mapping[str, str]:
        """Where clients find this resource's metadata (RFC 9728 §5.1)."""
        return {"resource_metadata": self._metadata_url}

    @property
    def routes(self) -> Sequence[BaseRoute]:
        """The protected resource metadata, at RFC 9728's path for `resource` and at the bare well-known path."""
        settings = self._settings
        routes: list[BaseRoute] = list(
            create_protected_resource_routes(
                resource_url=AnyHttpUrl(settings.resource),
                authorization_servers=[AnyHttpUrl(settings.issuer)],
                scopes_supported=settings.scopes_supported or None,
                resource_name=settings.resource_name,
            )
        )
        bare = "/.well-known/oauth-protected-resource"
        first = routes[0]
        if isinstance(first, Route) and first.path != bare:
            routes.append(Route(bare, endpoint=first.endpoint, methods=["GET", "OPTIONS"]))
        return routes


def _scopes(value: object) -> frozenset[str]:
    if isinstance(value, str):
        return frozenset(value.split())
    if isinstance(value, list):
        return frozenset(item for item in value if isinstance(item, str))
    return frozenset()


def _label(subject: str) -> str:
    """``oauth/<sub>``, the subject hashed when it holds characters a label must not (``:``, spaces, ``/``)."""
    if _SUBJECT_SAFE.fullmatch(subject):
        return f"oauth/{subject}"
    return f"oauth/~{hashlib.sha256(subject.encode('utf-8', 'surrogatepass')).hexdigest()[:24]}"


register_authenticator("oauth", JwtAuthenticator, settings=OAuthSettings, rank=10)
