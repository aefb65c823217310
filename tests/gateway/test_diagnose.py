from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

from toolscout.gateway._upstream._diagnose import StderrCapture

CHATTY = (
    "import sys\n"
    "for i in range(100_000): sys.stderr.write(f'noise line {i:06d} ' + 'x' * 60 + '\\n')\n"
    "sys.stderr.write('the last words\\n')"
)


def test_a_chatty_server_costs_at_most_the_limit_and_its_last_lines_are_kept() -> None:
    capture = StderrCapture(limit=16 * 1024)
    try:
        done = subprocess.run([sys.executable, "-c", CHATTY], stderr=capture.file, timeout=60, check=False)

        tail = capture.tail()
        assert done.returncode == 0
        assert tail.endswith("the last words")
        assert "noise line 099999" in tail
        assert "noise line 000000" not in tail
        assert 0 < capture.held <= 16 * 1024
    finally:
        capture.close()


def test_the_server_never_blocks_on_a_full_pipe_while_nobody_asks_for_the_tail() -> None:
    capture = StderrCapture(limit=1024)
    try:
        done = subprocess.run([sys.executable, "-c", CHATTY], stderr=capture.file, timeout=60, check=False)

        assert done.returncode == 0
    finally:
        capture.close()


def test_a_closed_capture_has_no_tail() -> None:
    capture = StderrCapture()
    subprocess.run([sys.executable, "-c", "import sys; sys.stderr.write('bye\\n')"], stderr=capture.file, check=True)
    capture.close()

    assert capture.tail() == ""


def test_the_tail_waits_for_bytes_the_drain_thread_has_read_but_not_yet_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    # A loaded machine can pause the drain thread between taking bytes off the pipe and keeping them:
    # the pipe then looks empty while the server's last words are in neither place (seen in CI).
    real_read = os.read

    def slow_read(fd: int, size: int) -> bytes:
        chunk = real_read(fd, size)
        if chunk and threading.current_thread().name == "toolscout-upstream-stderr":
            time.sleep(0.5)
        return chunk

    monkeypatch.setattr(os, "read", slow_read)
    capture = StderrCapture()
    try:
        subprocess.run(
            [sys.executable, "-c", "import sys; sys.stderr.write('FOO_TOKEN is not set\\n')"],
            stderr=capture.file,
            check=True,
        )

        assert capture.tail() == "FOO_TOKEN is not set"
    finally:
        capture.close()
