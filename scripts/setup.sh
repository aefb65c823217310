#!/usr/bin/env bash
# Set up everything toolscout needs in this checkout: .venv (with all extras), the npm MCP
# servers the tests start (.mcp-servers/), and Debian packages. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null || PYTHON=python3
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
export PIP_DISABLE_PIP_VERSION_CHECK=1
.venv/bin/python -m pip install -q --upgrade pip 2>&1 | grep -v '^WARNING: Location' || true
# The CPU build of torch lies on this machine's disk; asking for it first keeps
# sentence-transformers from pulling a multi-GB CUDA build.
.venv/bin/python -c 'import torch' 2>/dev/null || .venv/bin/pip install -q torch==2.13.0 2>&1 | grep -v '^WARNING: Location' || true
.venv/bin/pip install -q -e ".[dev,semantic,mcp,tiktoken,redis,bench]" 2>&1 | grep -v '^WARNING: Location' || true
.venv/bin/python -c 'import toolscout' >/dev/null
