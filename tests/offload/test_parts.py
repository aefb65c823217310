import base64

from mcp_types import CallToolResult, EmbeddedResource, ImageContent, TextContent, TextResourceContents

from toolscout.offload._parts import MAX_PARTS, model_text, plain_result, split_parts


def test_a_plain_string_is_one_text_part_kept_byte_exact():
    text = "a\r\nb\u0301\n"
    [part] = split_parts(text)
    assert (part.kind, part.content_type, part.text) == ("text", "text/plain", text)


def test_a_string_holding_json_is_a_json_part_with_its_original_text():
    text = '{"b": 1,\n "a": [1, 2]}'
    [part] = split_parts(text)
    assert part.kind == "json" and part.text == text and part.value == {"b": 1, "a": [1, 2]}


def test_invalid_json_looking_text_stays_text():
    [part] = split_parts('{"a": 1,')
    assert part.kind == "text"


def test_nan_is_not_json():
    [part] = split_parts("[NaN, Infinity]")
    assert part.kind == "text"


def test_a_json_value_is_pretty_printed_for_line_reading():
    [part] = split_parts({"items": [1, 2]})
    assert part.kind == "json" and part.text.count("\n") >= 3 and part.value == {"items": [1, 2]}


def test_an_mcp_result_model_becomes_text_and_binary_parts():
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
    result = CallToolResult(
        content=[
            TextContent(type="text", text="first"),
            TextContent(type="text", text="second"),
            ImageContent(type="image", data=base64.b64encode(png).decode(), mime_type="image/png"),
        ]
    )
    parts = split_parts(plain_result(result))
    assert [(part.kind, part.content_type) for part in parts] == [("text", "text/plain"), ("binary", "image/png")]
    assert parts[0].text == "first\nsecond"
    assert parts[1].data == png


def test_structured_content_equal_to_the_text_is_not_stored_twice():
    result = {"content": [{"type": "text", "text": '{"a": [1, 2]}'}], "structuredContent": {"a": [1, 2]}}
    assert [part.label for part in split_parts(result)] == ["content[0]"]


def test_structured_content_different_from_the_text_is_its_own_json_part():
    result = {"content": [{"type": "text", "text": "summary"}], "structuredContent": {"rows": [1]}, "isError": False}
    parts = split_parts(result)
    assert [(part.kind, part.label) for part in parts] == [("text", "content[0]"), ("json", "structuredContent")]


def test_an_embedded_resource_claiming_json_that_is_not_keeps_its_type_but_is_text():
    block = EmbeddedResource(
        type="resource",
        resource=TextResourceContents(uri="file:///x.json", mime_type="application/json", text='{"broken": '),
    )
    [part] = split_parts(plain_result(CallToolResult(content=[block])))
    assert (part.kind, part.content_type) == ("text", "application/json")
    assert "file:///x.json" in part.label


def test_a_blob_resource_and_invalid_base64_are_binary():
    result = [
        {"type": "resource", "resource": {"uri": "file:///a.bin", "blob": base64.b64encode(b"\x00\x01").decode()}},
        {"type": "audio", "data": "not base64!!", "mimeType": "audio/wav"},
    ]
    parts = split_parts(result)
    assert [(part.kind, part.data) for part in parts] == [("binary", b"\x00\x01"), ("binary", b"not base64!!")]


def test_a_dict_that_merely_has_content_is_plain_json():
    [part] = split_parts({"content": "hello", "author": "me"})
    assert part.kind == "json" and part.label == "result"


def test_too_many_parts_are_stored_whole():
    blocks = []
    for i in range(MAX_PARTS + 1):
        blocks += [{"type": "text", "text": str(i)}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}]
    [part] = split_parts(blocks)
    assert part.kind == "json" and part.value == blocks


def test_lone_surrogates_are_replaced_so_the_text_stays_utf8():
    [part] = split_parts("bad \ud800 char")
    assert part.body.decode("utf-8") == "bad \ufffd char"


def test_bytes_are_binary_and_measured_as_base64():
    [part] = split_parts(b"\xff\x00")
    assert part.kind == "binary"
    assert model_text(b"\xff\x00") == base64.b64encode(b"\xff\x00").decode()


def test_structured_content_wrapping_the_text_in_one_key_is_not_stored_twice():
    text = "hello\r\nworld\n"
    wrapped = {"content": [{"type": "text", "text": text}], "structuredContent": {"content": text}}
    assert [part.label for part in split_parts(wrapped)] == ["content[0]"]
    listing = {"content": [{"type": "text", "text": "[1, 2]"}], "structuredContent": {"result": [1, 2]}}
    assert [part.label for part in split_parts(listing)] == ["content[0]"]
