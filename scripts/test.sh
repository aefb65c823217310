#!/usr/bin/env bash
# Set up for development (scripts/dev-setup.sh), then run every check: ruff, mypy --strict, all tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/dev-setup.sh
.venv/bin/ruff check src tests bench train
.venv/bin/ruff format --check src tests bench train
.venv/bin/mypy
.venv/bin/pytest "$@"
