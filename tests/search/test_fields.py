from toolscout import ToolSpec
from toolscout.search._fields import FIELD_NAMES, tool_fields


def test_tool_fields_collect_nested_parameters_texts_and_enums() -> None:
    tool = ToolSpec(
        name="create_issue",
        title="Create issue",
        description="Open a new issue in a repository.",
        namespace="github",
        parameters={
            "type": "object",
            "properties": {
                "repo": {"type": "string", "description": "Repository as owner/name."},
                "labels": {"type": "array", "items": {"type": "string", "enum": ["bug", "feature"]}},
                "assignee": {
                    "type": "object",
                    "title": "Assignee",
                    "properties": {"login": {"type": "string", "description": "GitHub login."}},
                },
                "priority": {"anyOf": [{"const": "urgent"}, {"type": "integer"}]},
            },
        },
    )
    fields = tool_fields(tool)
    assert fields.name == "create_issue"
    assert fields.namespace == "github"
    assert fields.description == "Create issue\nOpen a new issue in a repository."
    assert fields.param_names.split() == ["repo", "labels", "assignee", "login", "priority"]
    assert set(fields.param_descriptions.split("\n")) == {"Repository as owner/name.", "Assignee", "GitHub login."}
    assert sorted(fields.enums.split()) == ["bug", "feature", "urgent"]


def test_tool_fields_of_a_tool_without_parameters_are_empty() -> None:
    fields = tool_fields(ToolSpec(name="ping"))
    assert [fields.text(name) for name in FIELD_NAMES] == ["ping", "", "", "", "", ""]
