"""The README's commands and library example are real: the example runs and prints what it claims."""

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).parents[1] / "README.md"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)


def test_readme_opens_with_the_setup_and_test_commands():
    first, second = _blocks("bash")[:2]
    assert first.startswith("bash scripts/setup.sh && .venv/bin/toolscout ")
    assert second.strip() == "bash scripts/test.sh"
    ci = (Path(__file__).parents[1] / ".ci" / "run").read_text(encoding="utf-8")
    assert "bash scripts/test.sh" in ci


def test_library_example_runs_and_prints_its_commented_output():
    code = _blocks("python")[0]
    assert len(code.strip().splitlines()) <= 16
    expected = [line.split("# ", 1)[1].strip() for line in code.splitlines() if line.startswith("print(")]
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert result.stdout.strip().splitlines() == expected
