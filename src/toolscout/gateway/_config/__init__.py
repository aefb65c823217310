"""The gateway's config: the file, its ``${VAR}`` expansion, server names, and the chain of gateways it runs in."""

from __future__ import annotations

from ._chain import CHAIN_ENV, CHAIN_HEADER, REACH_HEADER, GatewayChain, decode_reach
from ._datadir import default_store_path
from ._envsubst import expand_env, required_variables
from ._files import read_document, warn_if_others_may_write
from ._model import GatewayConfig, GatewaySettings, HttpServer, ServerConfig, StdioServer, load_config
from ._selfref import check_not_self_referencing

__all__ = [
    "CHAIN_ENV",
    "CHAIN_HEADER",
    "check_not_self_referencing",
    "decode_reach",
    "default_store_path",
    "expand_env",
    "GatewayChain",
    "GatewayConfig",
    "GatewaySettings",
    "HttpServer",
    "load_config",
    "REACH_HEADER",
    "read_document",
    "required_variables",
    "ServerConfig",
    "StdioServer",
    "warn_if_others_may_write",
]
