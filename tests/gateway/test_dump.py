from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest

from toolscout import Catalog, ToolSpec
from toolscout.gateway import GatewayConfig
from toolscout.gateway._internal import dump_catalog, mcp_definition

pytestmark = pytest.mark.anyio

SERVERS = Path(__file__).parent / "servers"


def config(**extra: object) -> GatewayConfig:
    servers: dict[str, object] = {
        "paged": {"command": sys.executable, "args": [str(SERVERS / "paged.py")]},
        "broken": {"command": sys.executable, "args": [str(SERVERS / "broken_listing.py")]},
        **extra,
    }
    return GatewayConfig.from_mapping({"mcpServers": servers, "toolscout": {"connect_timeout_s": 30}})


async def test_every_server_is_dumped_sorted_with_one_report_each_in_config_order() -> None:
    with anyio.fail_after(120):
        result = await dump_catalog(config())
    names = [tool.name for tool in result.catalog]
    assert names[:4] == ["broken__add", "broken__crash", "broken__echo", "broken__hang"]
    assert names[4:] == [f"paged__{name}" for name in ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot")]
    assert [report.name for report in result.servers] == ["paged", "broken"]
    paged, broken = result.servers
    assert (paged.tools, paged.error, paged.repaired, paged.problems) == (6, None, (), ())
    assert (broken.tools, broken.repaired) == (4, ("echo",))
    assert [problem.tool for problem in broken.problems] == ["broken", None]
    assert result.failed == ()


async def test_a_failing_server_is_reported_and_costs_only_its_own_tools() -> None:
    quitter = {"command": sys.executable, "args": ["-c", "import sys; sys.stderr.write('bad key\\n'); sys.exit(2)"]}
    missing = {"command": "/nonexistent/server"}
    with anyio.fail_after(120):
        result = await dump_catalog(config(quitter=quitter, missing=missing))
    assert len(result.catalog) == 10
    failed = {report.name: report.error for report in result.failed}
    assert set(failed) == {"quitter", "missing"}
    assert "exited during start-up" in str(failed["quitter"]) and "bad key" in str(failed["quitter"])
    assert "No such file or directory" in str(failed["missing"])


async def test_disabled_servers_are_not_started() -> None:
    disabled = {"command": "/nonexistent/server", "disabled": True}
    with anyio.fail_after(120):
        result = await dump_catalog(config(off=disabled))
    assert [report.name for report in result.servers] == ["paged", "broken"]


async def test_the_written_file_is_an_mcp_catalog_that_loads_back_identically(tmp_path: Path) -> None:
    with anyio.fail_after(120):
        result = await dump_catalog(config())
    path = tmp_path / "out" / "catalog.json"
    result.write(path)
    definitions = json.loads(path.read_text(encoding="utf-8"))
    assert all({"name", "namespace", "description", "inputSchema"} <= set(item) for item in definitions)
    loaded = Catalog.from_file(path)
    assert loaded == result.catalog
    assert [tool.namespace for tool in loaded][:1] == ["broken"]
    assert list(tmp_path.joinpath("out").iterdir()) == [path]  # no temporary file left behind


def test_an_mcp_definition_keeps_title_annotations_and_output_schema() -> None:
    tool = ToolSpec(
        name="srv__read",
        namespace="srv",
        title="Read",
        description="Read a thing.",
        annotations={"readOnlyHint": True},
        output_schema={"type": "object", "properties": {"text": {"type": "string"}}},
    )
    definition = mcp_definition(tool)
    assert list(definition) == [
        "name",
        "namespace",
        "title",
        "description",
        "inputSchema",
        "outputSchema",
        "annotations",
    ]
    (again,) = Catalog.from_definitions([definition])
    assert again == tool
