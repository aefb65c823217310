"""Fixtures shared across test folders: a real `redis-server` on a free loopback port."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

REDIS_START_LIMIT_S = 30


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A `redis-server` (Debian's package, installed by scripts/setup.sh) for this test session."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (scripts/setup.sh installs it with apt-get where it can)")
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
