"""Run a gateway until its client leaves (stdio) or it is told to stop (SIGINT/SIGTERM).

A first SIGINT or SIGTERM, whenever it comes (even while upstreams are still starting),
stops the gateway cleanly: over HTTP no new connection is accepted and calls in flight get
`SHUTDOWN_GRACE_S` to finish; then every upstream session is closed and its process group
reaped, the offload store's temporary folder removed, and the process exits 0. A second
signal skips the grace. While serving, the process keeps its long-lived objects out of the
garbage collector's full passes (see `keep_heap_settled`).
"""

from __future__ import annotations

import contextlib
import logging
import signal
import socket
from collections.abc import Callable, Iterator
from typing import cast

import anyio
import anyio.abc
import uvicorn
from mcp.server import NotificationOptions
from mcp.server.stdio import stdio_server

from ..._errors import ConfigError
from ..._types import Transport
from ...observe._internal import install_provider_from_environment
from .._config import GatewayChain, GatewayConfig, check_not_self_referencing, warn_if_others_may_write
from .._server import Gateway
from ._app import MCP_PATH, http_app
from ._heap import keep_heap_settled
from ._stdin import StdinLines, pollable

__all__ = ["SHUTDOWN_GRACE_S", "run_gateway", "serve_http", "serve_stdio"]

logger = logging.getLogger("toolscout.gateway")

SHUTDOWN_GRACE_S = 5
"""Seconds HTTP calls in flight get to finish after a SIGINT/SIGTERM."""


class _Shutdown:
    """Turns SIGINT/SIGTERM into a graceful HTTP stop, or a cancellation of `scope`."""

    def __init__(self, scope: anyio.CancelScope) -> None:
        self.scope = scope
        self.http: uvicorn.Server | None = None

    def request(self) -> None:
        if self.http is not None and not self.http.should_exit:
            self.http.should_exit = True
        else:
            self.scope.cancel()

    async def watch(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            task_status.started()
            async for signum in signals:
                logger.info("received %s: shutting down", signal.Signals(signum).name)
                self.request()


class _SignalFreeServer(uvicorn.Server):
    """uvicorn without its own signal handlers (it re-raises them at exit, skipping clean-up)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def run_gateway(
    config: GatewayConfig,
    *,
    transport: Transport,
    host: str | None = None,
    port: int | None = None,
    on_listening: Callable[[str], None] = lambda url: None,
    wait_for_upstreams: bool = False,
) -> None:
    """Start the upstreams in the background, then serve `config` over `transport` until done.

    Args:
        config: The loaded gateway config.
        transport: ``stdio`` (one client on stdin/stdout) or ``http`` (Streamable HTTP).
        host: HTTP bind address (default: ``toolscout.host``).
        port: HTTP port (default: ``toolscout.port``; 0 picks a free one).
        on_listening: Called with the ``/mcp`` URL once the HTTP socket is bound.
        wait_for_upstreams: Serve only once every upstream's first start attempt finished.

    With ``toolscout.tracing`` on and no tracer provider set yet, spans are exported to the
    exporters ``OTEL_TRACES_EXPORTER`` names (see `install_provider_from_environment`), flushed at exit.

    Raises:
        ConfigError: An upstream is this gateway itself (see `check_not_self_referencing`), this gateway
            was started by a chain of gateways it is already part of (see `GatewayChain`), or
            ``OTEL_TRACES_EXPORTER`` names an exporter that is not installed, or the HTTP address cannot be
            bound (checked before any upstream starts).
    """
    settings = config.settings
    http_host = host or settings.host
    http_port = settings.port if port is None else port
    if transport == "stdio":
        check_not_self_referencing(config, host=None, port=None)
    else:
        check_not_self_referencing(config, host=http_host, port=http_port)
    if config.source is not None:
        warn_if_others_may_write(config.source)
    chain = GatewayChain.enter(config)
    logger.info(
        "gateway id %s (%s); loop errors name gateways by id", chain.links[-1], config.source or "no config file"
    )
    stop_tracing = install_provider_from_environment() if settings.tracing else None
    try:
        await _serve(config, chain, transport, http_host, http_port, on_listening, wait_for_upstreams)
    finally:
        if stop_tracing is not None:
            stop_tracing()


async def _serve(
    config: GatewayConfig,
    chain: GatewayChain,
    transport: Transport,
    http_host: str,
    http_port: int,
    on_listening: Callable[[str], None],
    wait_for_upstreams: bool,
) -> None:
    # Bound before any upstream starts, so a port in use is one line at once, not a traceback after start-up.
    sock = listening_socket(http_host, http_port) if transport == "http" else None
    with sock if sock is not None else contextlib.nullcontext():
        await _serve_on(config, chain, http_host, sock, on_listening, wait_for_upstreams)


async def _serve_on(
    config: GatewayConfig,
    chain: GatewayChain,
    http_host: str,
    sock: socket.socket | None,
    on_listening: Callable[[str], None],
    wait_for_upstreams: bool,
) -> None:
    transport: Transport = "stdio" if sock is None else "http"
    async with anyio.create_task_group() as group:
        with anyio.CancelScope() as scope:
            shutdown = _Shutdown(scope)
            # Started before anything else: a signal that came before the receiver is set up would go to
            # asyncio's own SIGINT handler, which cancels the main task (uvicorn then logs a traceback).
            await group.start(shutdown.watch)
            async with Gateway(
                config, transport=transport, wait_for_upstreams=wait_for_upstreams, chain=chain
            ) as gateway:
                group.start_soon(keep_heap_settled, gateway.pool.started, name="heap settling")
                if sock is None:
                    await serve_stdio(gateway)
                else:
                    port = sock.getsockname()[1]
                    await serve_http(
                        gateway, host=http_host, port=port, on_listening=on_listening, shutdown=shutdown, sock=sock
                    )
        group.cancel_scope.cancel()


async def serve_stdio(gateway: Gateway) -> None:
    """Serve one client over stdin/stdout until it disconnects (cancel the caller to stop sooner)."""
    options = gateway.server.create_initialization_options(NotificationOptions(tools_changed=True))
    # The SDK only iterates the lines, which StdinLines provides without a thread.
    stdin = cast("anyio.AsyncFile[str]", StdinLines()) if pollable(0) else None
    async with stdio_server(stdin=stdin) as (read_stream, write_stream):
        await gateway.server.run(read_stream, write_stream, options)


async def serve_http(
    gateway: Gateway,
    *,
    host: str,
    port: int,
    on_listening: Callable[[str], None] = lambda url: None,
    shutdown: _Shutdown | None = None,
    sock: socket.socket | None = None,
) -> None:
    """Serve Streamable HTTP on ``host:port`` until cancelled or `shutdown` asks for a graceful stop.

    `sock`: a socket already listening on ``host:port`` (see `listening_socket`), else one is bound here.

    Raises:
        ConfigError: ``host:port`` cannot be bound (in use, or not an address of this machine).
    """
    if gateway.config.settings.auth is None and host not in ("127.0.0.1", "localhost", "::1"):
        logger.warning(
            "serving on %s without toolscout.auth tokens: anyone who reaches the port can call every tool", host
        )
    if sock is None:
        sock = listening_socket(host, port)
    bound_port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{bound_port}{MCP_PATH}"
    config = uvicorn.Config(
        http_app(gateway, host=host),
        log_level="warning",
        log_config=None,  # uvicorn's records go through the gateway's own (redacting) handler
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=SHUTDOWN_GRACE_S,
    )
    server = _SignalFreeServer(config)
    if shutdown is not None:
        shutdown.http = server
    logger.info("gateway listening on %s", url)
    on_listening(url)
    with sock:
        await server.serve(sockets=[sock])


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket listening on ``host:port`` (0: a free port).

    Raises:
        ConfigError: It cannot be bound; the message names the address and ``--port``.
    """
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        # proto=IPPROTO_TCP matters: asyncio sets TCP_NODELAY only on sockets that say they are TCP,
        # and without it every 2026-07-28 single-exchange response stalls ~40 ms on delayed ACKs.
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    except OSError as exc:
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}", key="toolscout.host") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(512)
    except OSError as exc:
        sock.close()
        raise ConfigError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}; choose another port with --port "
            "(or toolscout.port), or stop what uses it",
            key="toolscout.port",
        ) from None
    return sock
