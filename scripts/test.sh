#!/usr/bin/env bash
# Set up for development (scripts/dev-setup.sh), then run every check: ruff, mypy --strict, all tests, and the
# branch coverage of the package (subprocesses the tests start included) must stay at or above the floor.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/dev-setup.sh
.venv/bin/ruff check src tests bench train
.venv/bin/ruff format --check src tests bench train
.venv/bin/mypy
.venv/bin/pytest --cov --cov-report=term --cov-fail-under=94 "$@"
