"""Run a gateway until its client leaves (stdio) or it is told to stop (HTTP, SIGINT/SIGTERM)."""

from __future__ import annotations

import contextlib
import logging
import signal
import socket
from collections.abc import Callable, Iterator

import anyio
import anyio.abc
import uvicorn
from mcp.server import NotificationOptions
from mcp.server.stdio import stdio_server

from .._types import Transport
from ._config import GatewayConfig
from ._http import MCP_PATH, http_app
from ._server import Gateway

__all__ = ["run_gateway", "serve_http", "serve_stdio"]

logger = logging.getLogger("toolscout.gateway")


async def run_gateway(
    config: GatewayConfig,
    *,
    transport: Transport,
    host: str | None = None,
    port: int | None = None,
    on_listening: Callable[[str], None] = lambda url: None,
) -> None:
    """Start the upstreams, then serve `config` over `transport` until done.

    Args:
        config: The loaded gateway config.
        transport: ``stdio`` (one client on stdin/stdout) or ``http`` (Streamable HTTP).
        host: HTTP bind address (default: ``toolscout.host``).
        port: HTTP port (default: ``toolscout.port``; 0 picks a free one).
        on_listening: Called with the ``/mcp`` URL once the HTTP socket is bound.
    """
    async with Gateway(config, transport=transport) as gateway:
        if transport == "stdio":
            await serve_stdio(gateway)
        else:
            settings = config.settings
            await serve_http(
                gateway,
                host=host or settings.host,
                port=settings.port if port is None else port,
                on_listening=on_listening,
            )


async def serve_stdio(gateway: Gateway) -> None:
    """Serve one client over stdin/stdout until it disconnects or a SIGINT/SIGTERM arrives."""
    options = gateway.server.create_initialization_options(NotificationOptions(tools_changed=True))
    async with anyio.create_task_group() as group:
        group.start_soon(_cancel_on_signal, group.cancel_scope)
        async with stdio_server() as (read_stream, write_stream):
            await gateway.server.run(read_stream, write_stream, options)
        group.cancel_scope.cancel()


async def serve_http(
    gateway: Gateway, *, host: str, port: int, on_listening: Callable[[str], None] = lambda url: None
) -> None:
    """Serve Streamable HTTP on ``host:port`` until SIGINT/SIGTERM, then shut down cleanly.

    A signal stops new connections, lets in-flight requests finish (up to 5 s), then the caller's
    `Gateway` context closes the upstreams and removes its folders; the process exits 0.
    """
    if gateway.config.settings.auth is None and host not in ("127.0.0.1", "localhost", "::1"):
        logger.warning(
            "serving on %s without toolscout.auth tokens: anyone who reaches the port can call every tool", host
        )
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    # proto=IPPROTO_TCP matters: asyncio sets TCP_NODELAY only on sockets that say they are TCP,
    # and without it every 2026-07-28 single-exchange response stalls ~40 ms on delayed ACKs.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(512)
    bound_port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{bound_port}{MCP_PATH}"
    config = uvicorn.Config(
        http_app(gateway, host=host), log_level="warning", access_log=False, lifespan="on", timeout_graceful_shutdown=5
    )
    server = _Server(config)
    with sock:
        async with anyio.create_task_group() as group:
            await group.start(_exit_on_signal, server)  # before announcing: a signal from then on is handled
            logger.info("gateway listening on %s", url)
            on_listening(url)
            await server.serve(sockets=[sock])
            group.cancel_scope.cancel()


class _Server(uvicorn.Server):
    """uvicorn without its own signal handling.

    uvicorn re-raises SIGTERM after its shutdown, which kills the process before the gateway has
    stopped its upstreams and removed its folders.
    """

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        """Leave signals to `_exit_on_signal`."""
        yield


async def _exit_on_signal(
    server: uvicorn.Server, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
) -> None:
    """On SIGINT/SIGTERM: stop accepting, let in-flight requests finish (uvicorn's graceful timeout)."""
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        task_status.started()
        async for _ in signals:
            server.should_exit = True
            return


async def _cancel_on_signal(scope: anyio.CancelScope) -> None:
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for _ in signals:
            scope.cancel()
            return
