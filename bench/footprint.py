"""Install footprint and time: the built wheel in a clean venv, plain and with each extra.

    .venv/bin/python bench/footprint.py [EXTRA ...]   # -> results/footprint.md

Sizes are what each distribution's files take in site-packages (from its RECORD); the install
time includes resolving and downloading from the package index (pip's cache warm or cold, as the
machine has it), so compare rows of one run.
"""

from __future__ import annotations

import csv
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

ROOT = Path(__file__).parents[1]
OUT = Path(__file__).parent / "results" / "footprint.md"


def dist_sizes(site: Path) -> dict[str, int]:
    """Bytes on disk per installed distribution, from each RECORD file."""
    sizes: dict[str, int] = {}
    for record in site.glob("*.dist-info/RECORD"):
        name = record.parent.name.split("-")[0]
        total = 0
        with record.open(newline="") as handle:
            for row in csv.reader(handle):
                path = site / row[0]
                if path.is_file():
                    total += path.stat().st_size
        sizes[name] = total
    return sizes


def measure(wheel: Path, extra: str | None) -> tuple[float, dict[str, int]]:
    with tempfile.TemporaryDirectory() as folder:
        env = Path(folder) / "env"
        venv.EnvBuilder(with_pip=True).create(env)
        target = f"{wheel}[{extra}]" if extra else str(wheel)
        started = time.perf_counter()
        subprocess.run([env / "bin" / "pip", "install", "-q", "--disable-pip-version-check", target], check=True)
        elapsed = time.perf_counter() - started
        (site,) = (env / "lib").glob("python*/site-packages")
        return elapsed, dist_sizes(site)


def main() -> None:
    with tempfile.TemporaryDirectory() as dist:
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", dist, ROOT], check=True)
        (wheel,) = Path(dist).glob("toolscout-*.whl")
        rows = []
        plain_time, plain = measure(wheel, None)
        rows.append(("plain", plain_time, sum(plain.values())))
        for extra in sys.argv[1:]:
            seconds, sizes = measure(wheel, extra)
            rows.append((f"[{extra}]", seconds, sum(sizes.values())))
    mib = 1 << 20
    lines = ["| install | time s | site-packages MB |", "|---|---:|---:|"]
    lines += [f"| {name} | {seconds:.1f} | {total / mib:.1f} |" for name, seconds, total in rows]
    lines += ["", "Plain install, largest distributions:", "", "| distribution | MB |", "|---|---:|"]
    lines += [f"| {name} | {size / mib:.1f} |" for name, size in sorted(plain.items(), key=lambda kv: -kv[1])[:12]]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
