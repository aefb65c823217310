from __future__ import annotations

import hashlib
import json
import math
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import tiktoken
import tiktoken.load
import tiktoken.registry

from toolscout import BpeOpenAICounter, CharsPerToken, ConfigError, TiktokenCounter, TokenCounter, default_token_counter
from toolscout._tokens import schema_tokens

O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"


class NetworkUsed(AssertionError):
    pass


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail loudly if anything tries to resolve a host or open a connection."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise NetworkUsed(f"network access attempted: {args!r}")

    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)


@pytest.fixture
def empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "tiktoken-cache"
    cache.mkdir()
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(cache))
    monkeypatch.delenv("DATA_GYM_CACHE_DIR", raising=False)
    for name in ("o200k_base", "cl100k_base"):
        monkeypatch.delitem(tiktoken.registry.ENCODINGS, name, raising=False)
    return cache


def byte_encoding(name: str) -> tiktoken.Encoding:
    """A tiny real tiktoken encoding: one token per byte, no merges."""
    return tiktoken.Encoding(
        name=name, pat_str=r"\S+|\s+", mergeable_ranks={bytes([i]): i for i in range(256)}, special_tokens={}
    )


@pytest.mark.parametrize(("text", "tokens"), [("", 0), ("abc", 1), ("abcd", 1), ("abcde", 2), ("x" * 400, 100)])
def test_chars_per_token_rounds_up_at_four_characters_per_token(text: str, tokens: int) -> None:
    assert CharsPerToken().count(text) == tokens


def test_chars_per_token_takes_a_custom_ratio() -> None:
    counter = CharsPerToken(3.5)
    assert counter.count("x" * 7) == 2
    assert counter.count("x" * 8) == 3
    assert counter.name == "chars/3.5"
    assert counter.ratio == 3.5


def test_chars_per_token_counts_characters_not_bytes() -> None:
    assert CharsPerToken(1).count("日本語🙂") == 4


@pytest.mark.parametrize("ratio", [0, -2.0, math.nan, math.inf, True, "4"])
def test_a_ratio_that_is_not_a_positive_finite_number_is_a_config_error(ratio: object) -> None:
    with pytest.raises(ConfigError, match="ratio"):
        CharsPerToken(ratio)  # type: ignore[arg-type]


def test_counters_satisfy_the_token_counter_protocol() -> None:
    counters: list[TokenCounter] = [CharsPerToken(), TiktokenCounter(byte_encoding("bytes"))]
    assert [counter.name for counter in counters] == ["chars/4", "tiktoken:bytes"]


def test_schema_tokens_counts_compact_json_with_non_ascii_kept() -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string", "description": "Ville à chercher"}}}
    compact = json.dumps(schema, separators=(",", ":"), ensure_ascii=False)
    assert " " not in compact.replace("Ville à chercher", "")
    assert schema_tokens(schema, CharsPerToken(1)) == len(compact)
    assert schema_tokens(schema, CharsPerToken()) == math.ceil(len(compact) / 4)


def test_schema_tokens_keeps_key_order_as_given() -> None:
    one = schema_tokens({"b": 1, "a": 2}, CharsPerToken(1))
    assert one == len('{"b":1,"a":2}')


def test_without_a_cached_tiktoken_encoding_the_default_is_bpe_openai_and_nothing_is_downloaded(
    empty_cache: Path, no_network: None
) -> None:
    counter = default_token_counter()
    assert counter.name == "bpe-openai:o200k_base"
    assert list(empty_cache.iterdir()) == []


def test_with_caching_disabled_the_default_is_not_tiktoken(monkeypatch: pytest.MonkeyPatch, no_network: None) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    monkeypatch.delitem(tiktoken.registry.ENCODINGS, "o200k_base", raising=False)
    assert default_token_counter().name == "bpe-openai:o200k_base"
    assert TiktokenCounter.available("o200k_base") is False


def test_data_gym_cache_dir_is_consulted_when_tiktoken_cache_dir_is_unset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_network: None
) -> None:
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    monkeypatch.setenv("DATA_GYM_CACHE_DIR", str(tmp_path))
    monkeypatch.delitem(tiktoken.registry.ENCODINGS, "o200k_base", raising=False)
    assert TiktokenCounter.available("o200k_base") is False


def test_a_cached_file_with_the_wrong_hash_does_not_count_as_local(empty_cache: Path, no_network: None) -> None:
    # tiktoken would delete such a file and download it again, so it must not count.
    cached = empty_cache / hashlib.sha1(O200K_URL.encode()).hexdigest()
    cached.write_bytes(b"truncated download")
    assert TiktokenCounter.available("o200k_base") is False
    assert default_token_counter().name == "bpe-openai:o200k_base"
    assert cached.read_bytes() == b"truncated download"


def test_the_cache_location_checked_is_the_one_tiktoken_reads(empty_cache: Path, no_network: None) -> None:
    cached = empty_cache / hashlib.sha1(O200K_URL.encode()).hexdigest()
    cached.write_bytes(b"marker")
    assert tiktoken.load.read_file_cached(O200K_URL) == b"marker"


def test_asking_for_an_uncached_encoding_by_name_is_a_config_error_not_a_download(
    empty_cache: Path, no_network: None
) -> None:
    with pytest.raises(ConfigError, match="not cached locally") as info:
        TiktokenCounter("o200k_base")
    assert info.value.key == "encoding"


def test_an_unknown_encoding_name_is_not_available(empty_cache: Path) -> None:
    assert TiktokenCounter.available("no_such_encoding") is False


def test_an_encoding_already_loaded_in_the_process_is_used_by_default(
    empty_cache: Path, no_network: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(tiktoken.registry.ENCODINGS, "o200k_base", byte_encoding("o200k_base"))
    counter = default_token_counter()
    assert isinstance(counter, TiktokenCounter)
    assert counter.name == "tiktoken:o200k_base"
    assert counter.count("héllo") == 6


def test_tiktoken_counter_counts_special_token_markers_as_plain_text() -> None:
    counter = TiktokenCounter(byte_encoding("bytes"))
    assert counter.count("<|endoftext|>") == len("<|endoftext|>")
    assert counter.count("") == 0


@pytest.mark.slow
def test_without_any_tokenizer_installed_the_default_is_chars_per_four_and_the_counter_says_how_to_install() -> None:
    script = (
        "import sys; sys.modules['tiktoken'] = None; sys.modules['bpe_openai'] = None\n"
        "from toolscout import BpeOpenAICounter, CharsPerToken, TiktokenCounter, default_token_counter\n"
        "assert isinstance(default_token_counter(), CharsPerToken)\n"
        "assert TiktokenCounter.available() is False\n"
        "try:\n"
        "    TiktokenCounter()\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert "pip install 'toolscout[tiktoken]'" in result.stdout


def test_bpe_openai_counts_o200k_tokens_exactly() -> None:
    counter = BpeOpenAICounter()
    assert counter.count("hello world") == 2
    assert counter.count("") == 0
    assert counter.name == "bpe-openai:o200k_base"


@pytest.mark.slow
def test_the_default_counter_loads_its_tables_on_its_first_count_not_when_made() -> None:
    # Loading o200k's tables takes about half a second: a gateway must not spend it before its first answer.
    script = (
        "import sys\n"
        "from toolscout import default_token_counter\n"
        "counter = default_token_counter()\n"
        "assert counter.name == 'bpe-openai:o200k_base', counter.name\n"
        "assert 'bpe_openai' not in sys.modules, 'loaded when made'\n"
        "assert counter.count('hello world') == 2\n"
        "assert 'bpe_openai' in sys.modules\n"
    )
    subprocess.run(
        [sys.executable, "-c", script], env={**os.environ, "TIKTOKEN_CACHE_DIR": ""}, check=True, timeout=120
    )


def test_bpe_openai_counts_a_text_past_its_chunk_limit_instead_of_raising() -> None:
    # A 10,000-tool catalog's full listing is over 200,000 tokens, bpe-openai's limit for one call.
    counter = BpeOpenAICounter("o200k_base")
    line = "- srv1__tool_12: Widget operation number 12: frobnicate the gadget.\n"
    text = line * 20_000
    assert counter.count(text) == counter.count(line * 1_000) * 20
