from typing import Any

import pytest

from toolscout import CharsPerToken, ToolError
from toolscout.offload._document import Document
from toolscout.offload._read import read_chars, read_lines

COUNTER = CharsPerToken()


def doc(text: str) -> Document:
    return Document(text.encode())


def page_through_lines(text: str, max_tokens: int) -> str:
    document = doc(text)
    out: list[str] = []
    arguments: dict[str, Any] = {"start_line": 1}
    for _ in range(100_000):
        if "offset" in arguments:
            read = read_chars(document, offset=arguments["offset"], max_tokens=max_tokens, counter=COUNTER)
        else:
            read = read_lines(document, start_line=arguments["start_line"], max_tokens=max_tokens, counter=COUNTER)
        assert isinstance(read, dict)
        answer: dict[str, Any] = read
        assert COUNTER.count(answer["text"]) <= max_tokens or len(answer["text"]) <= 2
        out.append(answer["text"])
        if answer["next"] is None:
            return "".join(out)
        arguments = answer["next"]
    raise AssertionError("paging did not finish")


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("".join(f"row {i}, value {i * i}\n" for i in range(3000)), id="many-lines"),
        pytest.param("x" * 50_000, id="single-enormous-line"),
        pytest.param("".join(f"crlf {i}\r\n" for i in range(2000)), id="crlf"),
        pytest.param("é漢😀" * 9000 + "\nend", id="multibyte"),
        pytest.param("cafe\u0301 " * 5000, id="combining-marks"),
        pytest.param("no final newline\nlast", id="small"),
        pytest.param("", id="empty"),
    ],
)
def test_pages_joined_in_order_are_exactly_the_original(text):
    assert page_through_lines(text, 200) == text


def test_a_line_range_is_the_exact_slice():
    lines = [f"line {i}\r\n" for i in range(1, 101)]
    answer = read_lines(doc("".join(lines)), start_line=10, lines=5, max_tokens=1000, counter=COUNTER)
    assert answer["text"] == "".join(lines[9:14])
    assert (answer["start_line"], answer["end_line"], answer["total_lines"]) == (10, 14, 100)
    assert answer["next"] == {"start_line": 15}


def test_a_page_cut_inside_a_line_continues_by_character_offset():
    text = "short\n" + "y" * 10_000 + "\nafter\n"
    answer = read_lines(doc(text), start_line=2, max_tokens=100, counter=COUNTER)
    assert answer["partial_line"] is True
    assert answer["text"] == "y" * 400
    assert answer["next"] == {"offset": 6 + 400}


def test_a_page_never_splits_a_crlf_pair():
    text = "a" * 399 + "\r\n" + "b" * 1000
    answer = read_chars(doc(text), offset=0, max_tokens=100, counter=COUNTER)
    assert answer["text"] == "a" * 399
    assert answer["next"] == {"offset": 399}


def test_a_character_range_is_the_exact_slice_of_a_multibyte_text():
    text = "".join(chr(0x4E00 + i % 500) + "é😀" for i in range(5000))
    answer = read_chars(doc(text), offset=1234, length=300, max_tokens=1000, counter=COUNTER)
    assert answer["text"] == text[1234:1534]
    assert answer["end_offset"] == 1534
    assert answer["next"] == {"offset": 1534}


def test_reading_past_the_end_is_a_clear_error():
    lines = read_lines(doc("a\nb\n"), start_line=3, max_tokens=100, counter=COUNTER)
    chars = read_chars(doc("abc"), offset=3, max_tokens=100, counter=COUNTER)
    assert isinstance(lines, ToolError) and "past the end (2 lines)" in lines.message
    assert isinstance(chars, ToolError) and "past the end (3 characters)" in chars.message


def test_a_huge_request_decodes_only_a_page():
    text = "z" * 5_000_000
    answer = read_lines(doc(text), start_line=1, lines=1, max_tokens=200, counter=COUNTER)
    assert answer["text"] == "z" * 800
    assert answer["truncated"] is True
