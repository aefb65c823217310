import json

from toolscout import CharsPerToken
from toolscout.offload._shape import json_shape

COUNTER = CharsPerToken()


def test_an_object_lists_its_keys_with_types_sizes_and_a_sample_of_its_largest_array():
    value = {"total": 3, "next": None, "items": [{"id": i, "tags": ["a"] * 50} for i in range(3)], "title": "x" * 500}
    shape = json_shape(value, max_tokens=400, counter=COUNTER)
    assert shape["type"] == "object" and shape["keys"] == 4
    assert shape["fields"]["total"] == "number: 3"
    assert shape["fields"]["next"] == "null: null"
    assert shape["fields"]["items"] == "array[3] of object"
    assert shape["fields"]["title"].startswith('string: "xxx') and len(shape["fields"]["title"]) < 120
    assert shape["sample"]["path"] == ".items[0]"
    assert shape["sample"]["value"]["tags"][-1].startswith("…")


def test_an_array_reports_length_item_types_and_keys():
    value = [{"id": 1, "name": "a"}, {"id": 2, "extra": True}, None]
    shape = json_shape(value, max_tokens=400, counter=COUNTER)
    assert shape["length"] == 3
    assert shape["items"] == ["null", "object"]
    assert shape["item_keys"] == ["id", "name", "extra"]
    assert shape["sample"] == {"path": ".[0]", "value": {"id": 1, "name": "a"}}


def test_the_shape_fits_its_budget_by_dropping_detail():
    value = {f"key_{i}": {"deep": [{"x": "y" * 200}] * 10} for i in range(500)}
    for budget in (30, 100, 400):
        shape = json_shape(value, max_tokens=budget, counter=COUNTER)
        assert COUNTER.count(json.dumps(shape, ensure_ascii=False)) <= budget


def test_odd_keys_get_a_jq_path():
    shape = json_shape({"my key": [1, 2]}, max_tokens=200, counter=COUNTER)
    assert shape["sample"]["path"] == '.["my key"][0]'
