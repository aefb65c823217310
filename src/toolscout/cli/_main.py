"""The `toolscout` click group; each subcommand lives in its own module."""

from __future__ import annotations

from typing import Any

import click

from .._plugins import load_plugins
from .._redact import redact
from .._version import __version__

__all__ = ["main"]

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class _RedactingGroup(click.Group):
    """The command group; every error a command reports is redacted (a `${VAR}` secret never reaches stderr)."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.ClickException as exc:
            shown = redact(exc.message)
            if type(exc) is not click.ClickException or shown == exc.message:
                raise
            raise click.ClickException(shown) from None


@click.group(cls=_RedactingGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, prog_name="toolscout")
def main() -> None:
    """Keep hundreds of tools, send a handful: tool search for LLM agents."""


load_plugins()  # installed plug-ins register before the subcommands' options list what is registered

from ._catalog import catalog_group  # noqa: E402
from ._client_config import client_config_command  # noqa: E402
from ._config import config_group  # noqa: E402
from ._eval import eval_command  # noqa: E402
from ._inspect import inspect_command  # noqa: E402  # subcommands register after the group exists
from ._render import render_command  # noqa: E402
from ._report import report_command  # noqa: E402
from ._search import search  # noqa: E402
from ._serve import serve_command  # noqa: E402
from ._status import status_command  # noqa: E402
from ._usage import usage_group  # noqa: E402

main.add_command(inspect_command)
main.add_command(catalog_group)
main.add_command(search)
main.add_command(eval_command)
main.add_command(render_command)
main.add_command(serve_command)
main.add_command(status_command)
main.add_command(client_config_command)
main.add_command(config_group)
main.add_command(report_command)
main.add_command(usage_group)
