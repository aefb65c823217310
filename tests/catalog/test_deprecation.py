"""A tool that declares itself deprecated is known as such, with the tool it names instead."""

from __future__ import annotations

import pytest

from toolscout import Catalog, ToolSpec
from toolscout.catalog._internal import Deprecation

LIVE = ToolSpec(name="fs__read_text_file", description="Read a file as text.")


def _of(**fields: object) -> Deprecation | None:
    definition = {"name": "fs__read_file", "description": "Read a file.", "inputSchema": {}, **fields}
    catalog = Catalog.from_definitions([definition, LIVE.to_definition(), {"name": "other__read_text_file"}])
    return Deprecation.of(catalog["fs__read_file"], catalog)


@pytest.mark.parametrize(
    "description",
    [
        "Read the complete contents of a file as text. DEPRECATED: Use read_text_file instead.",
        "Deprecated: use `read_text_file` instead. Read a file.",
        "[deprecated] Read a file. Use the read_text_file tool instead.",
        "Deprecated. Use read_text_file instead.",
        "Read a file. This tool is deprecated; it was replaced by fs__read_text_file.",
    ],
)
def test_a_description_that_says_deprecated_names_its_same_namespace_replacement(description: str) -> None:
    assert _of(description=description) == Deprecation(replacement="fs__read_text_file")


@pytest.mark.parametrize(
    "fields",
    [
        {"title": "Read File (Deprecated)"},
        {"annotations": {"deprecated": True}},
        {"_meta": {"deprecated": True}},
        {"_meta": {"com.example/deprecated": "yes, it is"}},
    ],
)
def test_a_title_annotation_or_meta_flag_marks_it_without_a_replacement(fields: dict[str, object]) -> None:
    assert _of(**fields) == Deprecation(replacement=None)


def test_meta_names_the_replacement_by_key_or_in_its_message_and_is_kept_in_the_record() -> None:
    assert _of(_meta={"deprecated": True, "replacedBy": "read_text_file"}) == Deprecation("fs__read_text_file")
    assert _of(_meta={"deprecated": "Use read_text_file instead"}) == Deprecation("fs__read_text_file")
    catalog = Catalog.from_definitions([{"name": "t", "_meta": {"deprecated": True}}])
    assert catalog["t"].meta == {"deprecated": True}


@pytest.mark.parametrize(
    "fields",
    [
        {"description": "List the deprecated packages of a project; use npm_outdated instead for versions."},
        {"description": "Mark an API as deprecated."},
        {"description": "Deprecated dependency finder: list what a project should upgrade."},
        {"annotations": {"deprecated": False, "readOnlyHint": True}},
        {"_meta": {"deprecated": ""}},
    ],
)
def test_a_tool_about_deprecated_things_or_flagged_false_is_not_deprecated(fields: dict[str, object]) -> None:
    assert _of(**fields) is None


def test_a_replacement_the_catalog_lacks_or_the_tool_itself_is_no_replacement() -> None:
    assert _of(description="DEPRECATED: use write_file instead.") == Deprecation(replacement=None)
    assert _of(description="DEPRECATED: use read_file instead.") == Deprecation(replacement=None)


def test_a_tool_without_meta_keeps_its_fingerprint_and_meta_changes_it() -> None:
    plain = ToolSpec(name="t", description="d")
    assert plain.fingerprint == "852bb32f0ac3ac64e15a506a5701954c"  # as before `meta` (cached embeddings stay valid)
    assert plain.fingerprint != ToolSpec(name="t", description="d", meta={"deprecated": True}).fingerprint
