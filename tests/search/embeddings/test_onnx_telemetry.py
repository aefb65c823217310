"""onnxruntime's telemetry stays off: nothing in the user's temp folder or cache, nothing queued to upload."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import require

require(importlib.util.find_spec("onnxruntime") is not None, "the ONNX embedder needs toolscout[semantic]")

pytestmark = pytest.mark.slow

# What onnxruntime reads to decide about telemetry (its opt-out, and the CI markers that also suppress it).
TELEMETRY_SWITCHES = ("ORT_DISABLE_TELEMETRY", "CI", "TF_BUILD", "GITHUB_ACTIONS")
EMBED = (
    "import os\n"
    "from toolscout.search.embeddings._onnx import OnnxMiniLMEmbedder\n"
    "print(OnnxMiniLMEmbedder(threads=1).embed_query('weather in a city').shape)\n"
    "print(os.environ.get('ORT_DISABLE_TELEMETRY', 'unset'))"
)


def run_embedder(tmp_path: Path, **extra: str) -> tuple[Path, Path, str]:
    temp, home = tmp_path / "tmp", tmp_path / "home"
    temp.mkdir()
    home.mkdir()
    env = {key: value for key, value in os.environ.items() if key not in TELEMETRY_SWITCHES}
    env.update(TMPDIR=str(temp), HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), **extra)
    result = subprocess.run([sys.executable, "-c", EMBED], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    shape, switch = result.stdout.split()
    assert shape == "(384,)"
    return temp, home, switch


def test_the_onnx_embedder_leaves_no_session_file_and_no_telemetry_queue(tmp_path: Path) -> None:
    temp, home, switch = run_embedder(tmp_path)
    assert switch == "1"
    assert list(temp.iterdir()) == []
    assert not list(home.rglob("*onnxruntime*")) and not (home / ".cache" / "Microsoft").exists()


def test_a_user_who_opts_in_keeps_onnxruntimes_default(tmp_path: Path) -> None:
    _, _, switch = run_embedder(tmp_path, ORT_DISABLE_TELEMETRY="0")
    assert switch == "0"
