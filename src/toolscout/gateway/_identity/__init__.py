"""Who a caller is: the authenticator registry, static tokens, OAuth (JWT and JWKS), and the guard that checks them."""

from __future__ import annotations

from ._auth import AuthSettings
from ._grants import (
    Authenticator,
    AuthenticatorFactory,
    Credentials,
    Grant,
    GrantRule,
    Refusal,
    grant_of,
    register_authenticator,
)
from ._guard import Guard
from ._schemes import JwtAuthenticator, OAuthSettings, StaticTokens, StaticTokenVerifier, TokenGrant

__all__ = [
    "Authenticator",
    "AuthenticatorFactory",
    "AuthSettings",
    "Credentials",
    "Grant",
    "grant_of",
    "GrantRule",
    "Guard",
    "JwtAuthenticator",
    "OAuthSettings",
    "Refusal",
    "register_authenticator",
    "StaticTokens",
    "StaticTokenVerifier",
    "TokenGrant",
]
