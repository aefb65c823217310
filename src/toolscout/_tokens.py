"""Token estimates for tool schemas: exact with an offline tokenizer when one is installed, else chars/4.

toolscout never downloads anything at run time. tiktoken fetches its BPE files from the network
on first use and caches them; `default_token_counter` therefore uses tiktoken only when the
encoding is already loaded in this process or its files sit, intact, in tiktoken's cache.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import os
import tempfile
import threading
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ._errors import ConfigError

try:
    import tiktoken
    import tiktoken.registry
except ImportError:  # the optional `tiktoken` extra
    tiktoken = None  # type: ignore[assignment]

# The optional `tokens` extra. Imported on first use only: importing bpe-openai costs ~0.4 s.
_HAVE_BPE_OPENAI = importlib.util.find_spec("bpe_openai") is not None

if TYPE_CHECKING:
    from tiktoken import Encoding

    from .catalog import ToolSpec

__all__ = [
    "BpeOpenAICounter",
    "CharsPerToken",
    "TiktokenCounter",
    "TokenCounter",
    "default_token_counter",
    "schema_tokens",
    "tool_tokens",
]

_BLOB = "https://openaipublic.blob.core.windows.net/"
# The files behind tiktoken's public encodings and their SHA-256 (facts from `tiktoken_ext.openai_public`).
# tiktoken re-downloads a cached file whose hash differs, so a file only counts as local if it matches.
_ENCODING_FILES: dict[str, tuple[tuple[str, str], ...]] = {
    "o200k_base": (
        (_BLOB + "encodings/o200k_base.tiktoken", "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"),
    ),
    "cl100k_base": (
        (_BLOB + "encodings/cl100k_base.tiktoken", "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"),
    ),
    "p50k_base": (
        (_BLOB + "encodings/p50k_base.tiktoken", "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069"),
    ),
    "r50k_base": (
        (_BLOB + "encodings/r50k_base.tiktoken", "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930"),
    ),
}
_ENCODING_FILES["o200k_harmony"] = _ENCODING_FILES["o200k_base"]
_ENCODING_FILES["p50k_edit"] = _ENCODING_FILES["p50k_base"]

_INSTALL_HINT = "tiktoken is not installed; run: pip install 'toolscout[tiktoken]'"


class TokenCounter(Protocol):
    """Counts the tokens a text costs a model.

    Contract: `count` is deterministic, never touches the network, is safe to call from
    several threads, and returns 0 for the empty string.
    """

    @property
    def name(self) -> str:
        """A short label for reports, e.g. ``"chars/4"`` or ``"tiktoken:o200k_base"``."""
        ...

    def count(self, text: str) -> int:
        """Return the number of tokens in `text`."""
        ...


class CharsPerToken:
    """Estimate tokens as ``ceil(len(text) / ratio)`` characters; no dependency, no model.

    Args:
        ratio: Characters per token; 4.0 suits English text and JSON schemas.

    Raises:
        ConfigError: `ratio` is not a positive finite number.
    """

    __slots__ = ("_ratio",)

    def __init__(self, ratio: float = 4.0) -> None:
        if isinstance(ratio, bool) or not isinstance(ratio, int | float) or not math.isfinite(ratio) or ratio <= 0:
            raise ConfigError(f"must be a positive number, got {ratio!r}", key="ratio")
        self._ratio = float(ratio)

    @property
    def name(self) -> str:
        """``"chars/<ratio>"``."""
        return f"chars/{self._ratio:g}"

    @property
    def ratio(self) -> float:
        """Characters per token."""
        return self._ratio

    def count(self, text: str) -> int:
        """Return ``ceil(len(text) / ratio)``."""
        return math.ceil(len(text) / self._ratio)

    def __repr__(self) -> str:
        return f"CharsPerToken({self._ratio:g})"


class TiktokenCounter:
    """Exact token counts with a tiktoken encoding that is available locally.

    Special-token markers such as ``<|endoftext|>`` are counted as plain text.

    Args:
        encoding: An encoding name (``"o200k_base"`` for GPT-4o and later, ``"cl100k_base"`` for
            GPT-4), or a ready `tiktoken.Encoding` object.

    Raises:
        ImportError: tiktoken is not installed.
        ConfigError: The named encoding is neither loaded nor intact in tiktoken's local cache
            (toolscout will not download it).
    """

    __slots__ = ("_encoding",)

    def __init__(self, encoding: str | Encoding = "o200k_base") -> None:
        if tiktoken is None:
            raise ImportError(_INSTALL_HINT)
        if not isinstance(encoding, str):
            self._encoding: Encoding = encoding
            return
        if not TiktokenCounter.available(encoding):
            fetch = f"python -c \"import tiktoken; tiktoken.get_encoding('{encoding}')\""
            raise ConfigError(
                f"tiktoken encoding {encoding!r} is not cached locally and toolscout does not download at run time; "
                f"fetch it once with network access ({fetch}) or set TIKTOKEN_CACHE_DIR to a directory holding it",
                key="encoding",
            )
        self._encoding = tiktoken.get_encoding(encoding)

    @staticmethod
    def available(encoding: str = "o200k_base") -> bool:
        """Return True if `encoding` can be loaded without touching the network.

        True when tiktoken is installed and the encoding is already loaded in this process or
        every file it needs sits in tiktoken's cache directory with the expected hash. The cache
        directory is found as tiktoken finds it: ``TIKTOKEN_CACHE_DIR``, else
        ``DATA_GYM_CACHE_DIR``, else ``<tempdir>/data-gym-cache``; an empty value disables it.
        """
        if tiktoken is None:
            return False
        if encoding in tiktoken.registry.ENCODINGS:
            return True
        files = _ENCODING_FILES.get(encoding)
        cache_dir = _tiktoken_cache_dir()
        if files is None or cache_dir is None:
            return False
        return all(_cached_file_ok(cache_dir, url, sha256) for url, sha256 in files)

    @property
    def name(self) -> str:
        """``"tiktoken:<encoding>"``."""
        return f"tiktoken:{self._encoding.name}"

    def count(self, text: str) -> int:
        """Return the exact number of tokens in `text`."""
        return len(self._encoding.encode_ordinary(text))

    def __repr__(self) -> str:
        return f"TiktokenCounter({self._encoding.name!r})"


_BPE_CHUNK_CHARS = 150_000


class BpeOpenAICounter:
    """Exact ``o200k_base`` / ``cl100k_base`` counts from the `bpe-openai` package, whose token tables ship inside it.

    Raises:
        ImportError: bpe-openai is not installed.
    """

    __slots__ = ("_encoding",)

    def __init__(self, encoding: str = "o200k_base") -> None:
        if not _HAVE_BPE_OPENAI:
            raise ImportError("bpe-openai is not installed; run: pip install 'toolscout[tokens]'")
        with warnings.catch_warnings():
            # bpe-openai reads its tables through importlib.resources' legacy API.
            warnings.simplefilter("ignore", DeprecationWarning)
            import bpe_openai

            self._encoding = bpe_openai.get_encoding(encoding)

    @property
    def name(self) -> str:
        """``"bpe-openai:<encoding>"``."""
        return f"bpe-openai:{self._encoding.name}"

    def count(self, text: str) -> int:
        """Return the exact number of tokens in `text` (a long one counted in pieces cut after line breaks)."""
        total = 0
        start = 0
        while len(text) - start > _BPE_CHUNK_CHARS:
            # A token is at least one character, so a piece this long stays within bpe-openai's 200,000 tokens;
            # cut after a line break, where the pre-tokenizer splits anyway.
            end = text.rfind("\n", start, start + _BPE_CHUNK_CHARS) + 1 or start + _BPE_CHUNK_CHARS
            total += len(self._encoding.encode_ordinary(text[start:end]))
            start = end
        return total + len(self._encoding.encode_ordinary(text[start:]))

    def __repr__(self) -> str:
        return f"BpeOpenAICounter({self._encoding.name!r})"


def default_token_counter() -> TokenCounter:
    """Return the most exact token counter available offline.

    That is tiktoken's ``o200k_base`` when cached locally, else bpe-openai's ``o200k_base`` when
    installed, else `CharsPerToken` (chars/4).

    Never triggers a download: see `TiktokenCounter.available`.
    """
    if tiktoken is not None and "o200k_base" in tiktoken.registry.ENCODINGS:
        return TiktokenCounter("o200k_base")
    if TiktokenCounter.available("o200k_base"):
        return _DeferredCounter("tiktoken:o200k_base", lambda: TiktokenCounter("o200k_base"))
    if _HAVE_BPE_OPENAI:
        return _DeferredCounter("bpe-openai:o200k_base", lambda: BpeOpenAICounter("o200k_base"))
    return CharsPerToken()


class _DeferredCounter:
    """A counter whose token tables load on its first count, not when it is made.

    Loading o200k's tables takes about half a second; a gateway would otherwise spend it before
    answering its first client, although nothing is counted until a catalog or an output arrives.
    """

    __slots__ = ("_build", "_counter", "_lock", "_name")

    def __init__(self, name: str, build: Callable[[], TokenCounter]) -> None:
        self._name = name
        self._build = build
        self._counter: TokenCounter | None = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        """The loaded counter's name."""
        return self._name

    def count(self, text: str) -> int:
        """Return the loaded counter's count (loading it first, once, if needed)."""
        counter = self._counter
        if counter is None:
            with self._lock:
                if self._counter is None:
                    self._counter = self._build()
                counter = self._counter
        return counter.count(text)

    def __repr__(self) -> str:
        return f"default_token_counter() -> {self._name}"


def schema_tokens(value: object, counter: TokenCounter) -> int:
    """Count the tokens of `value` serialized as compact JSON (no spaces, non-ASCII kept as is)."""
    return counter.count(json.dumps(value, separators=(",", ":"), ensure_ascii=False))


def tool_tokens(tool: ToolSpec, counter: TokenCounter) -> int:
    """Tokens of `tool`'s neutral definition as compact JSON (`schema_tokens`).

    Cached per tool content for toolscout's own counters, whose name says how they count: planning the
    same catalog again (another scope, another style, the web page's budget) counts nothing twice.
    """
    if type(counter) not in _NAMED_COUNTERS:
        return schema_tokens(tool.to_definition(), counter)
    key = (counter.name, tool.fingerprint)
    tokens = _TOOL_TOKENS.get(key)
    if tokens is None:
        tokens = schema_tokens(tool.to_definition(), counter)
        with _TOOL_TOKENS_LOCK:
            _TOOL_TOKENS[key] = tokens
            while len(_TOOL_TOKENS) > _TOOL_TOKENS_CACHED:
                _TOOL_TOKENS.pop(next(iter(_TOOL_TOKENS)))
    return tokens


def _tiktoken_cache_dir() -> Path | None:
    for variable in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if variable in os.environ:
            value = os.environ[variable]
            return Path(value) if value else None
    return Path(tempfile.gettempdir()) / "data-gym-cache"


def _cached_file_ok(cache_dir: Path, url: str, sha256: str) -> bool:
    path = cache_dir / hashlib.sha1(url.encode(), usedforsecurity=False).hexdigest()
    try:
        data = path.read_bytes()
    except OSError:
        return False
    return hashlib.sha256(data).hexdigest() == sha256


_NAMED_COUNTERS = (CharsPerToken, TiktokenCounter, BpeOpenAICounter, _DeferredCounter)
_TOOL_TOKENS: dict[tuple[str, str], int] = {}
_TOOL_TOKENS_LOCK = threading.Lock()
_TOOL_TOKENS_CACHED = 200_000
