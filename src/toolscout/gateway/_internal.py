"""The private face of `toolscout.gateway`: what the rest of toolscout uses of it and users do not.

Users import from `toolscout.gateway` (its `__all__`, pinned by `tests/public_api.json`). Other toolscout
packages, the tests and the benchmarks import these names from here: the one private module of a
package that code outside it may import (docs/ARCHITECTURE.md, "Rules"). `tests/internal_api.json`
pins this list, which may only shrink.
"""

from ._auth import StaticTokens, TokenGrant
from ._config import HttpServer, StdioServer
from ._dump import dump_catalog, mcp_definition
from ._envsubst import expand_env, required_variables
from ._feed import Deliver
from ._files import read_document
from ._logs import configure_logging
from ._oauth import JwtAuthenticator, OAuthGrant, OAuthSettings
from ._pool import UpstreamPool
from ._records import UpstreamError
from ._upstream import Upstream

__all__ = [
    "configure_logging",
    "Deliver",
    "dump_catalog",
    "expand_env",
    "HttpServer",
    "JwtAuthenticator",
    "mcp_definition",
    "OAuthGrant",
    "OAuthSettings",
    "read_document",
    "required_variables",
    "StaticTokens",
    "StdioServer",
    "TokenGrant",
    "Upstream",
    "UpstreamError",
    "UpstreamPool",
]
