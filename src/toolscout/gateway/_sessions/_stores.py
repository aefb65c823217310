"""Open the gateway's session store from ``toolscout.store``; bound every call to it and to the output store in time."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

from ..._errors import StoreError
from ...offload import OffloadStore, OutputKind, OutputMeta
from ...session import DiscoveryStore
from ...session._internal import open_store as open_session_store
from .._config import default_store_path

__all__ = ["TimedOutputStore", "TimedStore", "open_store"]

_T = TypeVar("_T")
_STORE_THREADS = 4
_PRINCIPAL: ContextVar[str] = ContextVar("toolscout_output_principal", default="local")


def open_store(spec: str | None) -> DiscoveryStore:
    """Open the store ``toolscout.store`` names (see `toolscout.session.open_store`); default: the data dir's file.

    Raises:
        ConfigError: An unknown scheme, or a Redis URL without ``toolscout[redis]`` installed.
        StoreError: The store cannot be opened.
    """
    return open_session_store(spec, default=default_store_path(), key="toolscout.store")


class _Deadline:
    """Runs a store's calls on a few threads of its own and waits at most `timeout_s` for each.

    A store that hangs (a locked SQLite file, an unreachable Redis) holds at most those threads;
    the caller gets a `StoreError` in time and the store is used again as soon as it answers.
    Callers call from a worker thread, never from the event loop: waiting is blocking.
    """

    def __init__(self, what: str, *, timeout_s: float, threads: int) -> None:
        self.what = what
        self.timeout_s = timeout_s
        self._threads = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="toolscout-store")

    def call(self, method: Callable[..., _T], *args: object, **kwargs: object) -> _T:
        try:
            future = self._threads.submit(method, *args, **kwargs)
        except RuntimeError:  # shut down
            raise StoreError(f"the {self.what} is closed") from None
        try:
            return future.result(timeout=self.timeout_s)
        except TimeoutError:
            future.cancel()  # not started yet: never runs
            raise StoreError(f"the {self.what} did not answer within {self.timeout_s:g} s") from None

    def shutdown(self) -> None:
        self._threads.shutdown(wait=False, cancel_futures=True)


class TimedStore:
    """A `DiscoveryStore` whose every call answers within `timeout_s` or raises `StoreError`.

    A write that timed out may still land once the store answers: discoveries only append, so
    that is harmless.
    """

    def __init__(self, inner: DiscoveryStore, *, timeout_s: float, threads: int = _STORE_THREADS) -> None:
        """Wrap `inner`; at most `threads` of its calls run at once."""
        self.inner = inner
        self.timeout_s = timeout_s
        self._deadline = _Deadline("session store", timeout_s=timeout_s, threads=threads)

    def discovered(self, session_id: str) -> tuple[str, ...]:
        """The inner store's `discovered`, within the time limit."""
        return self._deadline.call(self.inner.discovered, session_id)

    def discover(self, session_id: str, names: Sequence[str]) -> tuple[str, ...]:
        """The inner store's `discover`, within the time limit."""
        return self._deadline.call(self.inner.discover, session_id, names)

    def forget(self, session_id: str) -> None:
        """The inner store's `forget`, within the time limit."""
        self._deadline.call(self.inner.forget, session_id)

    def sessions(self) -> int:
        """The inner store's `sessions`, within the time limit."""
        return self._deadline.call(self.inner.sessions)

    def close(self) -> None:
        """Drop the calls still queued, then close the inner store."""
        self._deadline.shutdown()
        self.inner.close()

    def __repr__(self) -> str:
        return f"TimedStore({self.inner!r}, timeout_s={self.timeout_s:g})"


class TimedOutputStore:
    """An `OffloadStore` whose every call answers within `timeout_s` or raises `StoreError`.

    The offload path turns that error into a failure of the one call that needed the store (a
    result kept inline with its preview, a read answered "unreadable, call again"). A store that
    timed out may still land later: its output is then evicted by the caps or dropped with its session.

    It also hands the store the principal each output belongs to: the offload path knows only the
    session, so the gateway serves each call inside `acting_for` (its caller's grant label), and
    every `put` made for that call names that principal.
    """

    def __init__(self, inner: OffloadStore, *, timeout_s: float, threads: int = _STORE_THREADS) -> None:
        """Wrap `inner`; at most `threads` of its calls run at once."""
        self.inner = inner
        self.timeout_s = timeout_s
        self.session_bytes = inner.session_bytes
        self.principal_bytes = inner.principal_bytes
        self.total_bytes = inner.total_bytes
        self.shared = inner.shared
        self._deadline = _Deadline("output store", timeout_s=timeout_s, threads=threads)

    @staticmethod
    @contextmanager
    def acting_for(principal: str) -> Iterator[None]:
        """Make the `put` calls made inside this block (and the threads it starts) store as `principal`'s."""
        token = _PRINCIPAL.set(principal)
        try:
            yield
        finally:
            _PRINCIPAL.reset(token)

    def put(
        self,
        session_id: str,
        data: bytes,
        *,
        kind: OutputKind,
        content_type: str,
        tool: str,
        principal: str | None = None,
    ) -> OutputMeta:
        """The inner store's `put`, within the time limit, as `principal`'s (default: that of `acting_for`)."""
        owner = _PRINCIPAL.get() if principal is None else principal
        return self._deadline.call(
            self.inner.put, session_id, data, kind=kind, content_type=content_type, tool=tool, principal=owner
        )

    def meta(self, session_id: str, handle: str) -> OutputMeta:
        """The inner store's `meta`, within the time limit."""
        return self._deadline.call(self.inner.meta, session_id, handle)

    def read(self, session_id: str, handle: str) -> bytes:
        """The inner store's `read`, within the time limit."""
        return self._deadline.call(self.inner.read, session_id, handle)

    def used(self, session_id: str) -> int:
        """The inner store's `used`, within the time limit."""
        return self._deadline.call(self.inner.used, session_id)

    def forget(self, session_id: str) -> None:
        """The inner store's `forget`, within the time limit."""
        self._deadline.call(self.inner.forget, session_id)

    def close(self) -> None:
        """Drop the calls still queued, then close the inner store."""
        self._deadline.shutdown()
        self.inner.close()

    def __repr__(self) -> str:
        return f"TimedOutputStore({self.inner!r}, timeout_s={self.timeout_s:g})"
