"""The private face of `toolscout.gateway`: what the rest of toolscout uses of it and users do not.

Users import from `toolscout.gateway` (its `__all__`, pinned by `tests/public_api.json`). Other toolscout
packages, the tests and the benchmarks import these names from here: the one private module of a
package that code outside it may import (docs/ARCHITECTURE.md, "Rules"). `tests/internal_api.json`
pins this list, which may only shrink.
"""

from ._config import HttpServer, StdioServer, expand_env, read_document, required_variables
from ._http import configure_logging
from ._identity import JwtAuthenticator, OAuthSettings, StaticTokens, TokenGrant
from ._sessions import Deliver
from ._upstream import Upstream, UpstreamError, UpstreamPool, dump_catalog, mcp_definition

__all__ = [
    "configure_logging",
    "Deliver",
    "dump_catalog",
    "expand_env",
    "HttpServer",
    "JwtAuthenticator",
    "mcp_definition",
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
