import base64
import json

import pytest

from toolscout import CharsPerToken
from toolscout.offload._internal import FileOffloadStore
from toolscout.offload._stub import offload_result

COUNTER = CharsPerToken()


@pytest.fixture
def store(tmp_path):
    with FileOffloadStore(tmp_path, session_bytes=4 << 20) as opened:
        yield opened


def offload(store, result, budget=400, preview=100):
    return offload_result(
        result, session_id="s", tool="read", budget=budget, preview_tokens=preview, store=store, counter=COUNTER
    )


def tokens(value) -> int:
    return COUNTER.count(json.dumps(value, ensure_ascii=False))


@pytest.mark.parametrize(
    ("chars", "offloaded"),
    [
        pytest.param(1599, False, id="just-under"),
        pytest.param(1600, False, id="at"),
        pytest.param(1601, True, id="over"),
    ],
)
def test_budget_edges(store, chars, offloaded):
    assert (offload(store, "x" * chars) is not None) is offloaded


def test_a_json_result_is_measured_as_the_model_would_receive_it(store):
    value = {"k": "x" * 1588}  # {"k": "..."} is 1597 characters + 3 = 1600
    assert len(json.dumps(value)) == 1597
    assert offload(store, value) is None
    assert offload(store, {"k": "x" * 1592}) is not None


def test_the_stub_is_under_budget_and_describes_the_stored_text(store):
    text = "".join(f"line {i}: {'data ' * 10}\n" for i in range(5000))
    stub = offload(store, text)
    assert tokens(stub) <= 400
    [part] = stub["parts"]
    assert store.read("s", part["handle"]) == text.encode()
    assert part["bytes"] == len(text.encode()) and part["lines"] == 5000
    assert part["tokens"] == pytest.approx(len(text) / 4, rel=0.01)
    assert text.startswith(part["preview"]) and part["preview"].endswith("\n")
    assert part["next"] == {"start_line": part["preview"].count("\n") + 1}
    assert stub["offloaded"] is True and "output_read" in stub["message"]


def test_the_preview_never_cuts_a_character_or_a_crlf(store):
    text = ("é😀\r\n" * 10) + ("漢" * 100_000)
    part = offload(store, text)["parts"][0]
    assert text.startswith(part["preview"])
    assert not part["preview"].endswith("\r")
    assert part["next"]["offset"] == len(part["preview"])


def test_a_json_result_gets_a_shape_summary(store):
    value = {"items": [{"id": i, "name": f"n{i}"} for i in range(2000)], "total": 2000}
    part = offload(store, value, budget=600, preview=300)["parts"][0]
    assert part["content_type"] == "application/json"
    assert part["shape"]["fields"]["items"] == "array[2000] of object"
    assert part["shape"]["sample"] == {"path": ".items[0]", "value": {"id": 0, "name": "n0"}}
    assert json.loads(store.read("s", part["handle"])) == value


def test_images_are_stored_and_described_never_inlined(store):
    png = b"\x89PNG" + bytes(range(256)) * 40
    encoded = base64.b64encode(png).decode()
    result = {
        "content": [
            {"type": "text", "text": "Screenshot taken."},
            {"type": "image", "data": encoded, "mimeType": "image/png"},
        ]
    }
    stub = offload(store, result)
    text_part, image_part = stub["parts"]
    assert text_part == {"content_type": "text/plain", "from": "content[0]", "text": "Screenshot taken."}
    assert image_part["content_type"] == "image/png" and image_part["bytes"] == len(png)
    assert store.read("s", image_part["handle"]) == png
    assert encoded[:40] not in json.dumps(stub)


def test_the_tools_own_error_flag_is_kept(store):
    stub = offload(store, {"content": [{"type": "text", "text": "E" * 5000}], "isError": True})
    assert stub["tool_reported_error"] is True


def test_a_part_the_store_refuses_keeps_only_its_preview(tmp_path):
    with FileOffloadStore(tmp_path, session_bytes=1 << 20) as small:
        stub = offload(small, "y" * (2 << 20))
    [part] = stub["parts"]
    assert part["stored"] is False and "handle" not in part and "next" not in part
    assert part["preview"].startswith("yyy")
    assert "only this preview" in part["note"]


def test_many_parts_under_a_small_budget_fall_back_to_one_stored_part(store):
    blocks = [
        {"type": "image", "data": base64.b64encode(bytes([i]) * 3000).decode(), "mimeType": "image/png"}
        for i in range(8)
    ]
    stub = offload(store, blocks, budget=200, preview=50)
    assert tokens(stub) <= 200
    [part] = stub["parts"]
    assert part["content_type"] == "application/json"
    assert json.loads(store.read("s", part["handle"])) == blocks


def test_a_pydantic_result_is_offloaded_through_its_json_form(store):
    from mcp_types import CallToolResult, TextContent

    result = CallToolResult(content=[TextContent(type="text", text="z" * 10_000)])
    [part] = offload(store, result)["parts"]
    assert store.read("s", part["handle"]) == b"z" * 10_000
