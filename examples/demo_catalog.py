"""The toolscout shown by the provider examples: the 133-tool sample catalog, with two real tools.

The time tools run for real; every other tool is answered by a stand-in that says what it would
have done, so the examples run without any other service.
"""

from __future__ import annotations

from datetime import datetime
from importlib import resources
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from toolscout import Catalog, ScoutSettings, Style, ToolCall, ToolScout


def current_time(call: ToolCall) -> str:
    zone = str(call.arguments.get("timezone") or "UTC")
    try:
        now = datetime.now(ZoneInfo(zone))
    except (ZoneInfoNotFoundError, ValueError):
        return f"Unknown time zone {zone!r}; use an IANA name such as Europe/Berlin."
    return now.strftime(f"%Y-%m-%d %H:%M ({zone})")


def stand_in(call: ToolCall) -> dict[str, object]:
    return {"note": "demo stand-in: the tool was not really run", "tool": call.name, "arguments": call.arguments}


def demo_scout(style: Style = "bridge") -> ToolScout:
    """A ToolScout over the sample catalog; deferral switches on by itself (133 tools)."""
    path = resources.files("toolscout") / "data" / "sample_catalog.json"
    return ToolScout(
        Catalog.from_file(str(path)),
        core=["read_file"],
        settings=ScoutSettings(style=style),
        handlers={"time__get_current_time": current_time},
        executor=stand_in,
    )
