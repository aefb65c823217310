"""The MCP gateway: config, upstream connections, the downstream server."""

from ._auth import AuthSettings
from ._config import GatewayConfig, GatewaySettings, load_config
from ._feed import ChangeFeed, FeedFactory, register_feed
from ._identity import Authenticator, AuthenticatorFactory, Credentials, Grant, Refusal, register_authenticator
from ._serve import run_gateway
from ._server import Gateway

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
