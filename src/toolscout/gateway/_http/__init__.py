"""Serving the gateway: the HTTP app, its body and session limits, the web page, logs, and the stdio loop."""

from __future__ import annotations

from ._logs import configure_logging
from ._serve import run_gateway, serve_http, serve_stdio

__all__ = [
    "configure_logging",
    "run_gateway",
    "serve_http",
    "serve_stdio",
]
