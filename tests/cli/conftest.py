from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

TOOLS = [
    {
        "name": "get_weather",
        "description": "Current weather and forecast for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}},
    },
    {
        "name": "send_email",
        "description": "Send an email message to a recipient.",
        "parameters": {
            "type": "object",
            "properties": {"to": {"type": "string"}, "subject": {"type": "string"}, "body": {"type": "string"}},
        },
    },
    {
        "name": "create_issue",
        "namespace": "github",
        "description": "Open a new issue in a GitHub repository.",
        "parameters": {"type": "object", "properties": {"repo": {"type": "string"}, "title": {"type": "string"}}},
    },
    {
        "name": "convert_currency",
        "description": "Convert an amount of money from one currency to another using exchange rates.",
        "parameters": {"type": "object", "properties": {"amount": {"type": "number"}, "to": {"type": "string"}}},
    },
    {
        "name": "translate_text",
        "description": "Translate text into another language.",
        "parameters": {"type": "object", "properties": {"text": {"type": "string"}, "target": {"type": "string"}}},
    },
]


@pytest.fixture
def catalog_file(tmp_path: Path) -> Path:
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps({"tools": TOOLS}), encoding="utf-8")
    return path


JsonlWriter = Callable[[list[dict[str, object]]], Path]


@pytest.fixture
def write_jsonl(tmp_path: Path) -> JsonlWriter:
    """Write records as a JSONL file in tmp_path and return its path."""

    def write(records: list[dict[str, object]]) -> Path:
        path = tmp_path / "queries.jsonl"
        path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
        return path

    return write
