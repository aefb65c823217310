"""The MCP gateway: config, upstream connections, the downstream server."""

from ._config import GatewayConfig, GatewaySettings, load_config
from ._http import run_gateway
from ._identity import (
    Authenticator,
    AuthenticatorFactory,
    AuthSettings,
    Credentials,
    Grant,
    Refusal,
    register_authenticator,
)
from ._server import Gateway
from ._sessions import ChangeFeed, FeedFactory, register_feed

__all__ = [
    "Authenticator",
    "AuthenticatorFactory",
    "AuthSettings",
    "ChangeFeed",
    "Credentials",
    "FeedFactory",
    "Gateway",
    "GatewayConfig",
    "GatewaySettings",
    "Grant",
    "load_config",
    "Refusal",
    "register_authenticator",
    "register_feed",
    "run_gateway",
]
