from __future__ import annotations

import subprocess
import sys

from toolscout.gateway._diagnose import StderrCapture

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
