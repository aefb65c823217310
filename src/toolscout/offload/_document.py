"""`Document`: a stored text output with line and character indexes, for reading and searching.

The bytes stay UTF-8; line starts and a sparse character index are computed once with numpy,
so converting between lines, characters and bytes costs a lookup plus a scan of one block.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np
import numpy.typing as npt

__all__ = ["Document", "DocumentCache"]

_BLOCK = 4_096


class Document:
    """A UTF-8 text with indexes: lines are 1-based, characters (code points) and bytes 0-based."""

    __slots__ = ("_block_chars", "_line_starts", "data", "text_chars")

    def __init__(self, data: bytes) -> None:
        """Index `data`, which must be valid UTF-8."""
        self.data = data
        raw = np.frombuffer(data, dtype=np.uint8)
        newlines = np.flatnonzero(raw == 0x0A) + 1
        starts = np.concatenate(([0], newlines[newlines < len(data)])) if len(data) else np.zeros(1, np.int64)
        self._line_starts: npt.NDArray[np.int64] = starts.astype(np.int64)
        lead = (raw & 0xC0) != 0x80  # a byte that starts a character
        padded = np.zeros(-(-len(data) // _BLOCK) * _BLOCK, dtype=np.bool_)
        padded[: len(data)] = lead
        per_block = padded.reshape(-1, _BLOCK).sum(axis=1, dtype=np.int64)
        self._block_chars: npt.NDArray[np.int64] = np.concatenate(([0], np.cumsum(per_block))).astype(np.int64)
        self.text_chars = int(self._block_chars[-1])

    @property
    def lines(self) -> int:
        """Number of lines (a final line end does not start another line; empty text has one line)."""
        return len(self._line_starts)

    def line_start(self, line: int) -> int:
        """Byte offset where 1-based `line` starts (the end of the text for ``lines + 1``)."""
        return len(self.data) if line > self.lines else int(self._line_starts[line - 1])

    def line_of(self, byte: int) -> int:
        """The 1-based line holding `byte`."""
        return int(np.searchsorted(self._line_starts, byte, side="right"))

    def char_of(self, byte: int) -> int:
        """Characters before byte offset `byte` (which must start a character)."""
        block = byte // _BLOCK
        start = block * _BLOCK
        return int(self._block_chars[block]) + _count_leads(self.data[start:byte])

    def byte_of(self, char: int) -> int:
        """Byte offset of character `char` (the end of the text past the last character)."""
        if char >= self.text_chars:
            return len(self.data)
        block = int(np.searchsorted(self._block_chars, char, side="right")) - 1
        start = block * _BLOCK
        chunk = np.frombuffer(self.data, dtype=np.uint8, count=min(_BLOCK, len(self.data) - start), offset=start)
        leads = np.flatnonzero((chunk & 0xC0) != 0x80)
        return start + int(leads[char - int(self._block_chars[block])])

    def text(self, start: int, end: int) -> str:
        """The text between two byte offsets that start characters."""
        return self.data[start:end].decode("utf-8")


class DocumentCache:
    """A small thread-safe LRU of indexed documents, bounded in total bytes."""

    def __init__(self, max_bytes: int = 128 << 20) -> None:
        """Hold documents up to `max_bytes` in total (a larger one is indexed but not kept)."""
        self.max_bytes = max_bytes
        self._items: OrderedDict[tuple[str, str], Document] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> Document | None:
        """The cached document for `key`, if any."""
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: tuple[str, str], document: Document) -> None:
        """Keep `document`, dropping the least recently used ones past the byte bound."""
        if len(document.data) > self.max_bytes:
            return
        with self._lock:
            if key in self._items:
                return
            self._items[key] = document
            self._bytes += len(document.data)
            while self._bytes > self.max_bytes:
                _, dropped = self._items.popitem(last=False)
                self._bytes -= len(dropped.data)

    def drop_session(self, session_id: str) -> None:
        """Forget every document of one session."""
        with self._lock:
            for key in [key for key in self._items if key[0] == session_id]:
                self._bytes -= len(self._items.pop(key).data)


def _count_leads(chunk: bytes) -> int:
    return int(np.count_nonzero((np.frombuffer(chunk, dtype=np.uint8) & 0xC0) != 0x80))
