"""Test tiers and fixtures shared across test folders (a real `redis-server` on a free loopback port).

Tiers: ``pytest -m "not slow"`` is the inner loop; plain ``pytest`` (what CI runs) is everything.
A test is slow when it starts real servers, the CLI or other subprocesses: everything under the
folders in `SLOW_PATHS`, the files listed there, and any test marked ``@pytest.mark.slow``.
"""

from __future__ import annotations

import ast
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

# Tests (and the servers and CLIs they start, which inherit this environment) search lexically unless
# they opt in to hybrid search: rankings stay deterministic and no test embeds catalogs in the background
# unasked. Embeddings computed by the tests that opt in go to a folder of this run, not the user's cache.
os.environ.setdefault("TOOLSCOUT_SEARCH_MODE", "lexical")
os.environ.setdefault("TOOLSCOUT_CACHE_DIR", tempfile.mkdtemp(prefix="toolscout-test-cache-"))
# Each test gets a data dir of its own (below): what one test's gateway keeps there (sessions, learned pairs)
# never reaches another test, nor the user's own data dir.
_DATA_DIRS = Path(tempfile.mkdtemp(prefix="toolscout-test-data-"))

REDIS_START_LIMIT_S = 30
TESTS = Path(__file__).parent
SLOW_PATHS = (
    "gateway",
    "packaging",
    "browser",
    "golden/test_payloads.py",
    "cli/test_catalog_dump.py",
    "cli/test_client_config.py",
    "cli/test_render.py",
    "cli/test_search.py",
    "cli/test_status.py",
    "offload/test_gateway.py",
    "offload/test_jq_limits.py",
    "offload/test_real_server.py",
    "providers/test_examples.py",
    "search/test_lexical_processes.py",
    "test_readme.py",
    "test_plain_install_imports.py",
    "train/test_bare_machine.py",
    "train/test_miners.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests under `SLOW_PATHS` as ``slow``."""
    for item in items:
        relative = item.path.relative_to(TESTS).as_posix()
        if any(relative == path or relative.startswith(f"{path}/") for path in SLOW_PATHS):
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> object:
    """Point ``TOOLSCOUT_DATA_DIR`` at a fresh folder before the test's fixtures start anything.

    Set here rather than in a fixture so the gateways that module-scoped fixtures start get one too.
    """
    os.environ["TOOLSCOUT_DATA_DIR"] = tempfile.mkdtemp(prefix="test-", dir=_DATA_DIRS)
    return (yield)


def require(present: bool, what: str) -> None:
    """Skip the test, saying what is missing and how to get it, unless `present`.

    Under CI (``CI`` set) a missing prerequisite fails instead: the project's own set-up installs it.
    """
    if present:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{what} (CI must have it)")
    pytest.skip(what, allow_module_level=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A `redis-server` (Debian's package, installed by scripts/dev-setup.sh) for this test session."""
    binary = shutil.which("redis-server")
    require(binary is not None, "redis-server is not installed (scripts/dev-setup.sh installs it with apt-get)")
    assert binary is not None
    import redis

    workdir: Path = tmp_path_factory.mktemp("redis")
    port = free_port()
    command = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    process = subprocess.Popen([*command, "--dir", str(workdir)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=1)
        deadline = time.monotonic() + REDIS_START_LIMIT_S
        while True:  # bounded poll for the port: redis-server has no readiness signal on stdout
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"redis-server did not start on port {port}")
                time.sleep(0.05)
        client.close()
        yield url
    finally:
        process.terminate()
        process.wait(timeout=REDIS_START_LIMIT_S)


def parse_python(source: str, *, tries: int = 3) -> ast.Module:
    """`ast.parse`, again when CPython 3.11 raises its spurious recursion-depth ``SystemError``.

    CPython 3.11 keeps the AST constructor's recursion depth per interpreter, not per thread, so a parse
    racing another thread's (a background thread of an earlier test) can fail with "AST constructor
    recursion depth mismatch" although the source is fine (python/cpython#106905); full suite runs hit it
    (the README matrix check, the private-access check).
    """
    for _ in range(tries - 1):
        try:
            return ast.parse(source)
        except SystemError as exc:
            if "recursion depth mismatch" not in str(exc):
                raise
    return ast.parse(source)
