"""Open an `OffloadStore` from ``offload.store``, by URL scheme: a registry a third party can add to.

``file`` (the default: files in ``offload.folder``), ``redis://``, ``rediss://`` and ``unix://``
(Redis, with ``toolscout[redis]``) are built in; `register_output_store` adds a scheme.
"""

from __future__ import annotations

from collections.abc import Callable

from .._errors import ConfigError
from ._filestore import FileOffloadStore
from ._settings import OffloadSettings
from ._store import OffloadStore

__all__ = ["OutputStoreFactory", "open_output_store", "output_store_schemes", "register_output_store"]

OutputStoreFactory = Callable[[str, OffloadSettings], OffloadStore]
"""Builds a store from the whole spec (``scheme://...``) and the offload settings (caps, TTL, folder);
raises `ConfigError` or `StoreError`."""

_FACTORIES: dict[str, OutputStoreFactory] = {}
_KEY = "offload.store"


def register_output_store(scheme: str, factory: OutputStoreFactory) -> None:
    """Open specs starting with ``scheme://`` (or equal to `scheme`, for a bare keyword) with `factory`."""
    _FACTORIES[scheme] = factory


def output_store_schemes() -> tuple[str, ...]:
    """The registered schemes."""
    return tuple(_FACTORIES)


def open_output_store(settings: OffloadSettings) -> OffloadStore:
    """Open the store ``settings.store`` names (None: a `FileOffloadStore` in ``settings.folder``).

    Raises:
        ConfigError: An unknown scheme (the known ones are listed), or a scheme whose extra is missing.
        StoreError: The store cannot be opened.
    """
    spec = settings.store or "file"
    scheme = spec.split("://", 1)[0] if "://" in spec else spec
    factory = _FACTORIES.get(scheme)
    if factory is None:
        known = ", ".join(f"{name}://" if name != "file" else name for name in _FACTORIES)
        raise ConfigError(f"unknown output store {scheme!r}; use one of: {known}", key=_KEY)
    return factory(spec, settings)


def _file(spec: str, settings: OffloadSettings) -> OffloadStore:
    return FileOffloadStore(
        settings.folder,
        session_bytes=settings.session_bytes,
        total_bytes=settings.total_cap,
        principal_bytes=settings.principal_cap,
    )


def _redis(spec: str, settings: OffloadSettings) -> OffloadStore:
    try:
        from ._redisstore import RedisOffloadStore
    except ImportError:
        needs = "a Redis output store needs the redis extra: pip install 'toolscout[redis]'"
        raise ConfigError(needs, key=_KEY) from None
    return RedisOffloadStore(
        spec,
        session_bytes=settings.session_bytes,
        total_bytes=settings.total_cap,
        principal_bytes=settings.principal_cap,
        ttl_s=settings.ttl_s,
    )


register_output_store("file", _file)
for _scheme in ("redis", "rediss", "unix"):
    register_output_store(_scheme, _redis)
