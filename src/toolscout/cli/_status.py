"""`toolscout status`: the state of a running gateway's upstreams (its ``/healthz``) and of its learning."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .._errors import ToolscoutError
from .._redact import redact

if TYPE_CHECKING:
    from ..gateway import GatewaySettings

__all__ = ["status_command"]


@click.command("status")
@click.argument("config", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--url", help="The gateway's URL (its /mcp or /healthz) instead of CONFIG's host and port.")
@click.option("--token", envvar="TOOLSCOUT_TOKEN", help="Bearer token, for gateways with auth [env: TOOLSCOUT_TOKEN].")
@click.option("--json", "as_json", is_flag=True, help="Print the /healthz JSON as it came.")
@click.pass_context
def status_command(ctx: click.Context, config: Path | None, url: str | None, token: str | None, as_json: bool) -> None:
    """Show each upstream of a running HTTP gateway: state, tools, restarts, problems; and its learning.

    The gateway is found at CONFIG's `toolscout.host`/`toolscout.port`, or at --url. When no
    gateway answers there and CONFIG is given, each upstream is started once and probed
    directly, and the learned pairs are counted in CONFIG's usage store. Learning: whether it is
    on, the kind of store, and how many pairs each learning scope holds (as far as the token may
    see: its own scope; an admin token every scope). Exits with 1 when an upstream is not connected.
    """
    # Imported here: the MCP stack takes a while to import and other commands do not need it.
    import anyio
    import httpx2

    from ..gateway import load_config

    if config is None and url is None:
        raise click.UsageError("give CONFIG or --url")
    try:
        loaded = load_config(config) if config is not None else None
    except ToolscoutError as exc:
        raise click.ClickException(str(exc)) from None
    if url is None:
        assert loaded is not None
        host = loaded.settings.host
        url = f"http://{f'[{host}]' if ':' in host else host}:{loaded.settings.port}/healthz"
    target = url.removesuffix("/mcp").removesuffix("/healthz").rstrip("/") + "/healthz"
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        response = httpx2.get(target, headers=headers, timeout=10)
    except (httpx2.HTTPError, httpx2.InvalidURL, ValueError) as exc:
        if loaded is None:
            raise click.ClickException(f"no gateway answers at {target}: {exc}") from None
        click.echo(f"no gateway answers at {target}; starting each upstream once to probe it", err=True)
        from ..gateway._internal import dump_catalog

        dump = anyio.run(dump_catalog, loaded)
        report = {**_probe_report(dump.servers), "learning": _stored_learning(loaded.settings)}
    else:
        report = _health(response, target)
        _check_identity(report, target, token=token, expected=set(loaded.enabled_servers()) if loaded else None)
        learning = _served_learning(httpx2, target.removesuffix("/healthz"), headers)
        if learning is not None:
            report["learning"] = learning
    if as_json:
        click.echo(json.dumps(report, indent=2))
    else:
        _print(report)
    ctx.exit(0 if report.get("status") == "ok" else 1)


def _served_learning(http: Any, base: str, headers: dict[str, str]) -> dict[str, Any] | None:
    """The gateway's learning as the token may see it (its page's ``/ui/api/learning``), None when not shown."""
    try:
        response = http.get(f"{base}/ui/api/learning", headers=headers, timeout=10)
        answer = response.json() if response.status_code == 200 else None
    except (http.HTTPError, ValueError):
        return None
    if not isinstance(answer, dict) or not isinstance(answer.get("scopes"), list):
        return None
    return {key: answer.get(key) for key in ("enabled", "store", "scopes", "error") if key in answer}


def _stored_learning(settings: GatewaySettings) -> dict[str, Any]:
    """Learning as CONFIG sets it, with the pairs its usage store holds per scope (read directly)."""
    from ..learning._internal import UsageBounds, open_usage_store, store_kind

    spec = settings.usage_store_spec()
    learning: dict[str, Any] = {"enabled": settings.learning.enabled, "store": redact(spec), "scopes": []}
    kind = store_kind(spec)
    if not settings.learning.enabled or kind == "memory":
        return learning
    if kind == "sqlite" and not Path(spec.removeprefix("sqlite://")).exists():
        return learning  # nothing learned yet; reading would create the file
    try:
        store = open_usage_store(spec, UsageBounds.from_settings(settings.learning))
        try:
            learning["scopes"] = [{"scope": scope, "pairs": len(store.pairs(scope))} for scope in store.scopes()]
        finally:
            store.close()
    except ToolscoutError as exc:
        learning["error"] = redact(str(exc))
    return learning


def _health(response: Any, target: str) -> dict[str, Any]:
    """The health report in `response`, or a one-line error when `target` is not a toolscout gateway."""
    try:
        report = response.json() if response.status_code == 200 else None
    except ValueError:
        report = None
    if not isinstance(report, dict) or report.get("status") not in ("ok", "degraded"):
        raise click.ClickException(f"{target} is not a toolscout gateway (HTTP {response.status_code})")
    return report


def _check_identity(report: dict[str, Any], target: str, *, token: str | None, expected: set[str] | None) -> None:
    """Refuse a report that does not show the upstreams, or shows another gateway's."""
    upstreams = report.get("upstreams")
    if not isinstance(upstreams, list):
        if token:
            raise click.ClickException(f"the gateway at {target} did not accept the token")
        return
    names = {str(entry.get("name")) for entry in upstreams if isinstance(entry, dict)}
    if expected is not None and names and not names <= expected:
        raise click.ClickException(
            f"the gateway at {target} serves {', '.join(sorted(names))}, not this config's "
            f"{', '.join(sorted(expected))}: another gateway is on that address"
        )


def _probe_report(servers: Any) -> dict[str, Any]:
    upstreams = [
        {
            "name": report.name,
            "state": "failed" if report.error else "connected",
            "tools": report.tools,
            "error": report.error,
            "problems": [{"tool": problem.tool, "message": problem.message} for problem in report.problems],
        }
        for report in servers
    ]
    ok = all(entry["state"] == "connected" for entry in upstreams)
    return {"status": "ok" if ok else "degraded", "upstreams": upstreams}


def _print(report: dict[str, Any]) -> None:
    upstreams = report.get("upstreams")
    if not isinstance(upstreams, list):
        click.echo(f"status: {report.get('status')} (send a token to see the upstreams)")
        return
    shown = {id(entry): _shown_name(entry) for entry in upstreams}
    width = max((len(name) for name in shown.values()), default=4)
    click.echo(f"status: {report.get('status')}")
    search = report.get("search")
    if isinstance(search, dict):
        click.echo(f"  search: {_search_line(search)}")
    for entry in upstreams:
        line = f"  {shown[id(entry)]:<{width}}  {entry['state']:<10}  {entry.get('tools', 0):>4} tools"
        if entry.get("restarts"):
            line += f"  restarts={entry['restarts']}"
        if entry.get("gave_up"):
            line += "  gave up (no more restarts)"
        if entry.get("error"):
            line += f"  error: {entry['error']}"
            if entry.get("stderr"):
                line += f"; its stderr ends with: {entry['stderr']}"
        click.echo(line)
        for problem in entry.get("problems") or ():
            click.echo(f"  {'':<{width}}  left out {problem.get('tool') or '(unnamed)'}: {problem.get('message')}")
    for item in report.get("renamed") or ():
        click.echo(f"  renamed {item.get('tool')} to {item.get('shown_as')}: a bridge tool has its name")
    learning = report.get("learning")
    if isinstance(learning, dict):
        _print_learning(learning)


def _print_learning(learning: dict[str, Any]) -> None:
    if not learning.get("enabled"):
        click.echo("  learning: off")
        return
    scopes = [entry for entry in learning.get("scopes") or () if isinstance(entry, dict)]
    click.echo(f"  learning: on, store {learning.get('store')}{'' if scopes else ', no pairs yet'}")
    if learning.get("error"):
        click.echo(f"    cannot count the pairs: {learning['error']}")
    width = max((len(str(entry.get("scope"))) for entry in scopes), default=0)
    for entry in scopes:
        click.echo(f"    {entry.get('scope')!s:<{width}}  {entry.get('pairs', 0):>6} pairs")


def _search_line(search: dict[str, Any]) -> str:
    mode, state = search.get("mode"), search.get("embeddings")
    if state == "ready":
        return f"{mode} ({search.get('embedder')})"
    if state == "pending":
        return f"{mode} (hybrid once the embeddings are computed)"
    if state == "failed":
        return f"{mode} (embeddings failed: {search.get('error')})"
    return str(mode)


def _shown_name(entry: dict[str, Any]) -> str:
    """The server's namespace, with its name as written when that differs ("Ant-Design (Ant Design)")."""
    label = entry.get("label")
    return f"{entry['name']} ({label})" if label else str(entry["name"])
