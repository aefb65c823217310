#!/usr/bin/env bash
# Bench-only environment: the peers' tool-search code (pydantic-ai, FastMCP) and their ~40
# dependencies live in their own venv, .bench-venv/, never in the project's .venv or CI.
# bench/peers_worker.py runs inside it; everything else in bench/ runs in .venv. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1
PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null || PYTHON=python3
[ -x .bench-venv/bin/python ] || "$PYTHON" -m venv .bench-venv
.bench-venv/bin/pip install -q "pydantic-ai-slim>=1.0" "fastmcp>=3.0" 2>&1 | grep -v '^WARNING: Location' || true
.bench-venv/bin/python -c 'import pydantic_ai, fastmcp; print("pydantic-ai", pydantic_ai.__version__, "fastmcp", fastmcp.__version__)'
[ -x .venv/bin/python ] || bash scripts/setup.sh
.venv/bin/pip install -q -e ".[bench]" 2>&1 | grep -v '^WARNING: Location' || true
