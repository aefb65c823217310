"""`toolscout config import FILE`: another system's tool-search config as the equivalent ``toolscout`` section."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal, cast

import click

from .._errors import ToolscoutError

__all__ = ["config_group"]


@click.group("config")
def config_group() -> None:
    """Work with configuration files."""


@config_group.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["json", "yaml"]),
    default=None,
    help="How to print the section [default: yaml for a .yaml/.yml FILE, else json].",
)
def import_command(file: Path, output_format: Literal["json", "yaml"] | None) -> None:
    """Print the `toolscout` section equivalent to the tool-search config in FILE.

    FILE is a JSON, TOML or YAML config with a block of Hermes Agent (`tools.tool_search`),
    everruns (`capabilities`), AstrBot (`provider_settings`) or mcpagent (`mcpagent`); a
    `toolscout` section in it is merged in. The section goes to stdout; one line per key of those
    blocks goes to stderr, saying what it maps to or why it is ignored. The gateway reads the same
    blocks itself, so the section is for moving to toolscout's own keys, or for review. It is
    checked as `toolscout serve` reads it (`${VAR}` expanded) and printed as written.

    \b
    Examples:
      toolscout config import ~/.hermes/config.yaml
      toolscout config import agent.json --format yaml > toolscout.yaml
    """  # noqa: D301 - click needs a real \b (backspace) line to keep the examples unwrapped
    import yaml

    from .._validation import validate_section
    from ..compat import translate_config
    from ..compat._internal import translators
    from ..gateway import GatewaySettings
    from ..gateway._internal import expand_env, read_document

    source = str(file)
    try:
        document = read_document(file)
        translation = translate_config(document, source=source)
        explicit = document.get("toolscout", {})
        if not isinstance(explicit, dict):
            raise click.ClickException(f"toolscout: must be an object of settings (in {source})")
        section = translation.merged_with(explicit, key="toolscout", source=source)
        as_served = cast("dict[str, object]", expand_env(explicit, "toolscout"))  # a dict stays a dict
        expanded = translation.merged_with(as_served, key="toolscout", source=source)
        build = lambda data: GatewaySettings(**dict[str, Any](data))  # noqa: E731
        validate_section(GatewaySettings, expanded, "toolscout", source=source, build=build)
    except ToolscoutError as exc:
        raise click.ClickException(str(exc)) from None
    if not translation.blocks:
        systems = ", ".join(translator.name for translator in translators())
        raise click.ClickException(f"{source}: no tool-search block of {systems} found")
    for note in translation.notes:
        click.echo(note.line(), err=True)
    for key in explicit:
        click.echo(f"toolscout.{key}  kept as written", err=True)
    chosen = output_format or ("yaml" if file.suffix.lower() in (".yaml", ".yml") else "json")
    document_out: dict[str, Any] = {"toolscout": section}
    if chosen == "yaml":
        click.echo(yaml.safe_dump(document_out, sort_keys=False, allow_unicode=True), nl=False)
    else:
        click.echo(json.dumps(document_out, indent=2, ensure_ascii=False))
