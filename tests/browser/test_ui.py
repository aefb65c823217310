"""The gateway's web page in a real headless Chromium, against `toolscout serve` over real MCP servers.

Debian's ``chromium`` (installed by scripts/dev-setup.sh) is driven by Playwright pointed at the
system executable; no browser is downloaded. Set ``TOOLSCOUT_SCREENSHOTS=DIR`` to keep a
screenshot of each view (the README's come from here).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from tests.conftest import require
from tests.gateway.conftest import LIMIT_S, http_client, http_gateway, payload, real_servers, write_config

playwright = pytest.importorskip("playwright.async_api", reason="playwright is not installed (the dev extra has it)")

pytestmark = pytest.mark.anyio

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
QUERY = "current time in a time zone"


@pytest.fixture
async def page() -> AsyncIterator[object]:
    require(Path(CHROMIUM).exists(), "Debian's chromium is not installed (scripts/dev-setup.sh installs it)")
    async with playwright.async_playwright() as driver:
        browser = await driver.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        context = await browser.new_context(viewport={"width": 1280, "height": 900})
        yield await context.new_page()
        await browser.close()


async def screenshot(page: object, name: str) -> None:
    folder = os.environ.get("TOOLSCOUT_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        await page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=False)  # type: ignore[attr-defined]


async def test_the_page_lists_every_tool_mirrors_tool_search_and_shows_activity_and_metrics(
    page, tmp_path, monkeypatch
) -> None:
    require(importlib.util.find_spec("onnxruntime") is not None, "hybrid search needs toolscout[semantic]")
    monkeypatch.setenv("TOOLSCOUT_SEARCH_MODE", "auto")  # the engine a user gets: hybrid
    config = write_config(tmp_path / "gw.json", real_servers(tmp_path), mode="on")
    async with http_gateway(config) as url:
        base = url.removesuffix("/mcp")
        health: dict[str, Any] = {}
        async with httpx2.AsyncClient(timeout=LIMIT_S) as http:
            with anyio.fail_after(LIMIT_S):
                while health.get("search", {}).get("embeddings") != "ready":
                    health = (await http.get(f"{base}/healthz")).json()
                    await anyio.sleep(0.2)
        assert health["search"]["mode"] == "hybrid"
        async with http_client(url) as client:
            found = payload(await client.call_tool("tool_search", {"query": QUERY}))
            await client.call_tool("tool_call", {"name": "time__get_current_time", "arguments": {"timezone": "UTC"}})

        await page.goto(f"{base}/ui/")
        rows = page.locator("#tools tbody tr")
        await rows.first.wait_for(timeout=LIMIT_S * 1000)
        assert await rows.count() == health["tools"]
        for upstream in health["upstreams"]:
            assert await page.locator(f'[data-server="{upstream["name"]}"]').count() == 1
        await screenshot(page, "catalog")

        await page.click('nav button[data-view="playground"]')
        await page.fill("#query", QUERY)
        await page.click("#search-form button")
        await page.locator('.column[data-mode="lexical"] li').first.wait_for(timeout=LIMIT_S * 1000)
        column = page.locator('.column[data-mode="hybrid"] li')
        await column.first.wait_for(timeout=LIMIT_S * 1000)
        assert "ran as" not in await page.locator('.column[data-mode="hybrid"] h3').inner_text()
        shown = [await item.get_attribute("data-hit") for item in await column.all()]
        expected = [tool["name"] for tool in found["tools"]]
        assert expected and shown[: len(expected)] == expected
        await screenshot(page, "playground")

        await page.click('nav button[data-view="activity"]')
        call_row = page.locator('#events tr[data-kind="call"]', has_text="time__get_current_time")
        await call_row.wait_for(timeout=LIMIT_S * 1000)
        assert await page.locator('#events tr[data-kind="search"]', has_text=QUERY).count() >= 1
        await screenshot(page, "activity")

        await page.click('nav button[data-view="budget"]')
        await page.locator("#budget-servers .bar").first.wait_for(timeout=LIMIT_S * 1000)
        assert await page.locator("#budget-servers .bar").count() == len(health["upstreams"])
        providers = page.locator("#budget-providers .bar")
        assert await providers.count() == 10  # 4 providers x bridge/reveal, + native for Anthropic and Responses
        assert await page.locator('#budget-providers .bar[data-label="anthropic · native"]').count() == 1
        await screenshot(page, "budget")

        async with httpx2.AsyncClient(timeout=LIMIT_S) as http:
            metrics = (await http.get(f"{base}/metrics")).text
        assert 'toolscout_calls_total{outcome="ok",upstream="time"} 1.0' in metrics
        assert "toolscout_searches_total" in metrics


LONG_QUERY = "find the current time in a far away time zone for the meeting " * 8


@pytest.mark.parametrize("width", [1400, 1000])
async def test_the_page_is_found_from_the_root_and_every_activity_column_fits_the_window(
    tmp_path: Path, width: int
) -> None:
    require(Path(CHROMIUM).exists(), "Debian's chromium is not installed (scripts/dev-setup.sh installs it)")
    servers = {"time": real_servers(tmp_path)["time"]}
    config = write_config(tmp_path / "gw.json", servers, mode="on", style="bridge")
    async with http_gateway(config) as url:
        base = url.removesuffix("/mcp")
        assert f"{base}/ui/" in (tmp_path / "gateway.log").read_text(), "the start line names the page"
        async with http_client(url) as client:
            await client.call_tool("tool_search", {"query": LONG_QUERY})
            await client.call_tool("tool_search", {"query": "time"})
            await client.call_tool("tool_call", {"name": "time__get_current_time", "arguments": {"timezone": "UTC"}})
        async with playwright.async_playwright() as driver:
            browser = await driver.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
            context = await browser.new_context(viewport={"width": width, "height": 800})
            page = await context.new_page()
            await page.goto(f"{base}/")
            assert page.url == f"{base}/ui/"
            assert await page.locator('link[rel="icon"]').count() == 1
            card = page.locator('[data-server="time"]')
            await card.wait_for(timeout=LIMIT_S * 1000)
            assert "2 tools" in await card.inner_text()
            await page.click('nav button[data-view="activity"]')
            rows = page.locator('#events tr[data-kind="search"]')
            await rows.nth(1).wait_for(timeout=LIMIT_S * 1000)
            results = [await row.locator("td").nth(4).inner_text() for row in await rows.all()]
            assert all("loaded" not in result for result in results), results
            assert any(result.startswith("ok, found") for result in results), results
            call = page.locator('#events tr[data-kind="call"]')
            await call.wait_for(timeout=LIMIT_S * 1000)
            assert await call.locator("td").nth(4).inner_text() == "ok"
            cells = [page.locator("#events th"), rows.first.locator("td")]
            for cell in [item for group in cells for item in await group.all()]:
                box = await cell.bounding_box()
                assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, (
                    await cell.inner_text(),
                    box,
                )
            await browser.close()


async def test_the_learned_view_shows_the_requests_a_tool_was_learned_from(page: Any, tmp_path: Path) -> None:
    import sys

    from tests.gateway.conftest import SERVERS

    named = {"command": sys.executable, "args": [str(SERVERS / "named.py"), "find_recipes"]}
    learning = {"enabled": True, "store": "usage.db"}
    config = write_config(tmp_path / "gw.json", {"kitchen": named}, mode="on", search_mode="lexical", learning=learning)
    async with http_gateway(config) as url, httpx2.AsyncClient(timeout=LIMIT_S) as http:
        base = url.removesuffix("/mcp")
        async with http_client(url, session="cook") as client:
            await client.call_tool("tool_search", {"query": "plan the zorblat feast"})
            await client.call_tool("tool_search", {"query": "find recipes"})
            await client.call_tool("tool_call", {"name": "kitchen__find_recipes", "arguments": {"query": "basil"}})
        with anyio.fail_after(LIMIT_S):
            while not (await http.get(f"{base}/ui/api/learning")).json()["tools"]:
                await anyio.sleep(0.1)
        await page.goto(f"{base}/ui/")
        await page.click('nav button[data-view="learned"]')
        row = page.locator('#learned-tools tr[data-tool="kitchen__find_recipes"]')
        await row.wait_for(timeout=LIMIT_S * 1000)
        assert "Learning is on (sqlite store); your learning scope: local." in await page.inner_text("#learning-state")
        assert await page.inner_text("#learning-scopes") == "local: 2 pairs"
        items = [await item.inner_text() for item in await row.locator("li").all()]
        assert len(items) == 2 and all("1 session" in item for item in items), items
        assert any(item.startswith("“plan the zorblat feast”") for item in items), items
        assert await row.locator("li.missed").count() == 1
        await screenshot(page, "learned")
