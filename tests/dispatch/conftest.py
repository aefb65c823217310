import pytest

from toolscout import CharsPerToken, ScoutSettings, ToolScout, ToolSpec

ISSUE_SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {
        "repo": {"type": "string", "description": "owner/name"},
        "title": {"type": "string"},
        "labels": {"type": "array", "items": {"type": "string"}},
        "priority": {"type": "string", "enum": ["low", "high"]},
        "count": {"type": "integer"},
        "meta": {
            "type": "object",
            "properties": {"due": {"type": "string"}},
            "required": ["due"],
            "additionalProperties": False,
        },
    },
    "required": ["repo", "title"],
}

TOOLS = [
    ToolSpec(name="terminal", description="Run a shell command in the workspace."),
    ToolSpec(
        name="github__create_issue",
        namespace="github",
        description="Create a new issue in a GitHub repository.",
        parameters=ISSUE_SCHEMA,
    ),
    ToolSpec(name="github__search_repos", namespace="github", description="Search GitHub repositories by keyword."),
    ToolSpec(name="slack__send_message", namespace="slack", description="Send a message to a Slack channel."),
    ToolSpec(name="calendar__create_event", namespace="calendar", description="Create a calendar event."),
    ToolSpec(name="plugin__danger", namespace="plugin", description="Delete every repository."),
]


@pytest.fixture
def calls() -> list[tuple[str, dict[str, object]]]:
    return []


@pytest.fixture
def scout(calls) -> ToolScout:
    def run(call):
        calls.append((call.name, call.arguments))
        return {"ok": True, "tool": call.name}

    return ToolScout(
        TOOLS,
        core=["terminal"],
        settings=ScoutSettings(mode="on"),
        executor=run,
        token_counter=CharsPerToken(),
    )
