"""The built-in auth schemes, one module each: every module here is imported, so each registers itself.

A scheme's module makes its own `register_authenticator` call with the model of its ``toolscout.auth.<key>``
section, so adding a scheme is adding its module: no list names the modules. Static ``tokens``
(`_tokens.py`) is the smallest example, ``oauth`` (`_oauth.py`) the largest.
"""

from __future__ import annotations

import importlib
import pkgutil

from ._oauth import JwtAuthenticator, OAuthSettings
from ._tokens import StaticTokens, StaticTokenVerifier, TokenGrant

__all__ = ["JwtAuthenticator", "OAuthSettings", "StaticTokens", "StaticTokenVerifier", "TokenGrant"]

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
