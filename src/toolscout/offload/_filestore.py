"""`FileOffloadStore`: outputs as files, one folder per session, capped per session, principal and overall."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import threading
import time
from collections import OrderedDict, deque
from pathlib import Path

from .._errors import StoreError
from .._files import write_atomically
from ..session._internal import check_session_id
from ._handles import is_handle, new_handle
from ._store import FOREIGN_SESSION, LOCAL_PRINCIPAL, OutputKind, OutputMeta, OutputMissing, check_caps, full_message

__all__ = ["FileOffloadStore"]

_DATA, _META = ".data", ".meta.json"
_FOLDER_NAME_LENGTH = 32
_REMEMBERED_EVICTIONS = 1_024
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_EXPIRED = "this output expired: it was removed to make room for newer outputs; call the tool again"
_UNKNOWN = "no output with this handle in this session; use a handle from a result of this session"


class _Session:
    __slots__ = ("evicted", "outputs", "principal", "used")

    def __init__(self) -> None:
        self.outputs: OrderedDict[str, OutputMeta] = OrderedDict()
        self.evicted: deque[str] = deque(maxlen=_REMEMBERED_EVICTIONS)
        self.used = 0
        self.principal: str | None = None  # None: left by an earlier process, not written to since


class FileOffloadStore:
    """An `OffloadStore` keeping each output as a file under `root` (see the protocol's contract).

    Each session gets a folder named by a hash of its id (so no session id can name a path);
    a file is named by its handle, which is checked against the strict handle form first, and
    every path is resolved and checked to lie inside `root` before it is opened. Files are
    written with owner-only permissions through a temporary name and an atomic rename.

    One process should own a folder (the store is not `shared`; gateway replicas share a Redis
    output store instead). Outputs an earlier process left in it are indexed when the store
    opens: they count against `total_bytes` and belong to no principal until a principal
    stores in their session again, so any principal short of room evicts them first.

    Args:
        root: The folder to store in (created if missing). None: a private temporary folder,
            deleted by `close`.
        session_bytes: Bytes one session may hold.
        total_bytes: Bytes all sessions together may hold (at least `session_bytes`). None: 4 GiB,
            or `session_bytes` if larger.
        principal_bytes: Bytes the sessions of one principal may hold together (from `session_bytes`
            to `total_bytes`). None: `total_bytes`.

    Raises:
        StoreError: A cap is not a positive integer, or the folder cannot be created or is not a folder.
    """

    def __init__(
        self,
        root: str | Path | None = None,
        *,
        session_bytes: int = 256 << 20,
        total_bytes: int | None = None,
        principal_bytes: int | None = None,
    ) -> None:
        self.session_bytes, self.principal_bytes, self.total_bytes = check_caps(
            session_bytes, principal_bytes, total_bytes
        )
        self.shared = False
        self._owns_root = root is None
        try:
            if root is None:
                base = Path(tempfile.mkdtemp(prefix="toolscout-offload-"))
            else:
                base = Path(root).expanduser()
                base.mkdir(mode=0o700, parents=True, exist_ok=True)
            self.root = base.resolve(strict=True)
        except OSError as exc:
            raise StoreError(f"cannot create the offload folder {root!s}: {exc.strerror or exc}") from None
        if not self.root.is_dir():
            raise StoreError(f"the offload folder {self.root} is not a folder")
        self._sessions: dict[str, _Session] = {}
        self._total = 0
        self._held: dict[str | None, int] = {}  # bytes per principal (None: left by an earlier process)
        self._lock = threading.Lock()
        self._closed = False
        for folder in self.root.iterdir():
            if folder.is_dir() and not folder.is_symlink() and len(folder.name) == _FOLDER_NAME_LENGTH:
                self._load(folder)

    def put(
        self,
        session_id: str,
        data: bytes,
        *,
        kind: OutputKind,
        content_type: str,
        tool: str,
        principal: str = LOCAL_PRINCIPAL,
    ) -> OutputMeta:
        """Store `data`, evicting the session's, then the principal's, oldest outputs as needed; return the record."""
        check_session_id(session_id)
        self._check_open()
        if len(data) > self.session_bytes:
            raise StoreError(
                f"the output ({len(data)} bytes) is larger than the per-session cap ({self.session_bytes})"
            )
        folder = self._folder(session_id, create=True)
        meta = OutputMeta(
            handle=new_handle(), kind=kind, content_type=content_type, tool=tool, size=len(data), created=time.time()
        )
        _write(folder, meta.handle + _DATA, data)
        try:
            with self._lock:
                self._check_open()
                session = self._claim(self._load(folder), principal)
                self._make_room(session, folder, principal, meta.size)
                _write(folder, meta.handle + _META, json.dumps(meta.to_json()).encode())
                session.outputs[meta.handle] = meta
                session.used += meta.size
                self._total += meta.size
                self._held[principal] = self._held.get(principal, 0) + meta.size
        except StoreError:
            with contextlib.suppress(OSError):
                (folder / (meta.handle + _DATA)).unlink()
            raise
        return meta

    def meta(self, session_id: str, handle: str) -> OutputMeta:
        """The record of a stored output (raises `OutputMissing` for an invalid, expired or unknown handle)."""
        check_session_id(session_id)
        if not is_handle(handle):
            raise OutputMissing(
                "not an output handle: handles look like out_ followed by 20 hex digits", reason="invalid"
            )
        folder = self._folder(session_id, create=False)
        with self._lock:
            self._check_open()
            session = self._load(folder)
            found = session.outputs.get(handle)
            if found is not None:
                return found
            if handle in session.evicted:
                raise OutputMissing(_EXPIRED, reason="expired")
        raise OutputMissing(_UNKNOWN, reason="unknown")

    def read(self, session_id: str, handle: str) -> bytes:
        """The stored bytes (raises `OutputMissing` for an invalid, expired or unknown handle)."""
        meta = self.meta(session_id, handle)
        path = self._folder(session_id, create=False) / (meta.handle + _DATA)
        try:
            fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
        except FileNotFoundError:
            raise OutputMissing(_UNKNOWN, reason="unknown") from None
        except OSError as exc:
            raise StoreError(f"cannot read a stored output: {exc.strerror or exc}") from None
        with os.fdopen(fd, "rb") as file:
            return file.read()

    def used(self, session_id: str) -> int:
        """Bytes the session holds now."""
        check_session_id(session_id)
        folder = self._folder(session_id, create=False)
        with self._lock:
            self._check_open()
            return self._load(folder).used

    def total(self) -> int:
        """Bytes all sessions hold now."""
        with self._lock:
            self._check_open()
            return self._total

    def forget(self, session_id: str) -> None:
        """Delete the session's folder and everything in it."""
        check_session_id(session_id)
        folder = self._folder(session_id, create=False)
        with self._lock:
            self._check_open()
            forgotten = self._sessions.pop(folder.name, None)
            if forgotten is not None:
                self._total -= forgotten.used
                self._count(forgotten.principal, -forgotten.used)
            shutil.rmtree(folder, ignore_errors=True)

    def close(self) -> None:
        """Delete everything this store wrote (the whole folder if it made it)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._owns_root:
                shutil.rmtree(self.root, ignore_errors=True)
            else:
                for name in self._sessions:
                    shutil.rmtree(self.root / name, ignore_errors=True)
            self._sessions.clear()
            self._held.clear()
            self._total = 0

    def __enter__(self) -> FileOffloadStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _folder(self, session_id: str, *, create: bool) -> Path:
        folder = self.root / _folder_name(session_id)
        if create:
            try:
                folder.mkdir(mode=0o700, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"cannot create a session folder: {exc.strerror or exc}") from None
        if folder.is_symlink() or (folder.exists() and folder.resolve().parent != self.root):
            raise StoreError("a session folder is not a plain folder inside the offload folder; refusing to use it")
        return folder

    def _load(self, folder: Path) -> _Session:
        """The session's index, read from its folder the first time this process sees it."""
        session = self._sessions.get(folder.name)
        if session is not None:
            return session
        session = _Session()
        found: list[OutputMeta] = []
        if folder.is_dir():
            for path in folder.glob("*" + _META):
                meta = _read_meta(path)
                if meta is not None and (folder / (meta.handle + _DATA)).is_file():
                    found.append(meta)
            self._sessions[folder.name] = session  # only sessions with a folder are kept
        for meta in sorted(found, key=lambda item: item.created):
            session.outputs[meta.handle] = meta
            session.used += meta.size
        self._total += session.used
        self._count(None, session.used)
        return session

    def _claim(self, session: _Session, principal: str) -> _Session:
        """`session`, now counted as `principal`'s (refused if another principal stored in it)."""
        if session.principal is None:
            self._count(None, -session.used)
            self._count(principal, session.used)
            session.principal = principal
        elif session.principal != principal:
            raise StoreError(FOREIGN_SESSION)
        return session

    def _make_room(self, session: _Session, folder: Path, principal: str, size: int) -> None:
        """Evict the session's, then the principal's, oldest outputs until `size` more bytes fit every cap.

        Only outputs of `principal` (and outputs no principal holds) are ever evicted: when the
        rest of `total_bytes` is held by others, the output is refused instead.
        """
        reclaimable = self._held.get(principal, 0) + self._held.get(None, 0)
        if self._total - reclaimable + size > self.total_bytes:
            raise StoreError(full_message(self.total_bytes, size))
        while session.outputs and session.used + size > self.session_bytes:
            self._evict(session, folder)
        while self._held.get(principal, 0) + size > self.principal_bytes and self._evict_oldest(
            principal, keep=folder.name
        ):
            pass
        while self._total + size > self.total_bytes and (
            self._evict_oldest(None, keep=folder.name) or self._evict_oldest(principal, keep=folder.name)
        ):
            pass

    def _count(self, principal: str | None, size: int) -> None:
        held = self._held.get(principal, 0) + size
        if held:
            self._held[principal] = held
        else:
            self._held.pop(principal, None)

    def _evict_oldest(self, principal: str | None, *, keep: str) -> bool:
        """Evict the oldest output of `principal`'s sessions; False when it holds nothing.

        A session left empty is dropped with its folder, so sessions nobody uses again cost
        nothing, except `keep` (the session being written to).
        """
        oldest = min(
            (
                (name, session)
                for name, session in self._sessions.items()
                if session.outputs and session.principal == principal
            ),
            key=lambda item: next(iter(item[1].outputs.values())).created,
            default=None,
        )
        if oldest is None:
            return False
        name, session = oldest
        self._evict(session, self.root / name)
        if not session.outputs and name != keep:
            del self._sessions[name]
            with contextlib.suppress(OSError):
                (self.root / name).rmdir()
        return True

    def _evict(self, session: _Session, folder: Path) -> None:
        handle, meta = session.outputs.popitem(last=False)
        session.used -= meta.size
        self._total -= meta.size
        self._count(session.principal, -meta.size)
        session.evicted.append(handle)
        for suffix in (_META, _DATA):
            with contextlib.suppress(FileNotFoundError):
                (folder / (handle + suffix)).unlink()

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("the offload store is closed")


def _folder_name(session_id: str) -> str:
    return hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:_FOLDER_NAME_LENGTH]


def _write(folder: Path, name: str, data: bytes) -> None:
    """Write `data` to `folder/name` atomically (the new file replaces a link there, never follows it)."""
    try:
        write_atomically(folder / name, lambda file: file.write(data))
    except OSError as exc:
        raise StoreError(f"cannot write a stored output: {exc.strerror or exc}") from None


def _read_meta(path: Path) -> OutputMeta | None:
    try:
        meta = OutputMeta.from_json(json.loads(path.read_bytes()))
    except (OSError, ValueError):
        return None
    return meta if path.name == meta.handle + _META else None
