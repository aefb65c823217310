from hypothesis import given
from hypothesis import strategies as st

from toolscout.offload._document import Document, DocumentCache

TEXT = st.text(alphabet=st.sampled_from(["a", "b", "\n", "\r", "é", "€", "😀", "漢"]), max_size=12_000)


@given(TEXT, st.data())
def test_character_and_byte_offsets_agree_with_python(text, data):
    document = Document(text.encode())
    assert document.text_chars == len(text)
    char = data.draw(st.integers(0, len(text)))
    byte = document.byte_of(char)
    assert byte == len(text[:char].encode())
    assert document.char_of(byte) == char


@given(TEXT, st.data())
def test_lines_agree_with_splitting_on_newlines(text, data):
    document = Document(text.encode())
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    assert document.lines == max(1, len(lines))
    line = data.draw(st.integers(1, document.lines))
    start, end = document.line_start(line), document.line_start(line + 1)
    assert document.text(start, end).rstrip("\n") == (lines[line - 1] if lines else "")
    assert document.line_of(start) == line


def test_the_cache_is_bounded_in_bytes_and_drops_sessions():
    cache = DocumentCache(max_bytes=10)
    cache.put(("a", "1"), Document(b"12345"))
    cache.put(("b", "1"), Document(b"12345"))
    cache.put(("a", "2"), Document(b"12345"))
    assert cache.get(("a", "1")) is None
    assert cache.get(("b", "1")) is not None
    cache.drop_session("b")
    assert cache.get(("b", "1")) is None
    cache.put(("c", "1"), Document(b"x" * 11))
    assert cache.get(("c", "1")) is None
