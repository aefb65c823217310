"""`NATIVE_WORK`: interpreter exit waits for model code running natively on background threads.

Embedders load and run their models on toolscout's daemon embedding thread, inside C++ and Rust
extensions (onnxruntime, the tokenizers library, torch) that release the GIL while they work.
When the interpreter finalizes, CPython ends a daemon thread that asks for the GIL back with
``pthread_exit``; its forced unwinding through those C++ frames aborts the whole process
(``terminate called without an active exception``, exit status 134) after the script had
finished. So every such call runs inside `NATIVE_WORK`, and at exit (an ``atexit`` hook, which
runs before finalization) new sections are refused and the ones in flight are waited for: a
model load or build (seconds, once per cache) or one text's run (milliseconds). A refused
section raises `InterpreterExiting`, and the background thread stops quietly.

This module is imported on the caller's thread before any embedding thread starts, so the hook
is in place before the first section can begin.
"""

from __future__ import annotations

import atexit
import logging
import threading
from types import TracebackType

from ._base import EmbeddingError

__all__ = ["EXIT_WAIT_S", "NATIVE_WORK", "InterpreterExiting", "NativeWork"]

logger = logging.getLogger("toolscout.search")

EXIT_WAIT_S = 120.0
"""How long exit waits for native sections in flight (a model build on a slow machine takes seconds)."""


class InterpreterExiting(EmbeddingError):
    """Native work was refused because the interpreter is exiting."""


class NativeWork:
    """Counts native sections in flight; `stop` refuses new ones and waits for those running."""

    def __init__(self) -> None:
        self._active = 0
        self._stopping = False
        self._changed = threading.Condition()

    def __enter__(self) -> None:
        with self._changed:
            if self._stopping:
                raise InterpreterExiting("the interpreter is exiting")
            self._active += 1

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        with self._changed:
            self._active -= 1
            self._changed.notify_all()

    @property
    def stopping(self) -> bool:
        """True once exit has begun: no new section starts."""
        return self._stopping

    def stop(self, timeout: float = EXIT_WAIT_S) -> bool:
        """Refuse new sections and wait for the running ones; False when `timeout` ran out first."""
        with self._changed:
            self._stopping = True
            if self._active:
                logger.debug("waiting for %d native embedding section(s) before exit", self._active)
            return self._changed.wait_for(lambda: self._active == 0, timeout)


NATIVE_WORK = NativeWork()
"""The process's one gate; `atexit` stops it."""

atexit.register(NATIVE_WORK.stop)
