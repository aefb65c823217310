#!/usr/bin/env bash
# Set up everything toolscout needs in this checkout: .venv (with all extras), the npm MCP
# servers the tests start (.mcp-servers/), and Debian packages. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null || PYTHON=python3
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
export PIP_DISABLE_PIP_VERSION_CHECK=1
# Runs a pip command quietly; on failure prints its output (minus this machine's index warnings) and stops.
quiet() {
    local out
    if ! out=$("$@" 2>&1); then
        printf '%s\n' "$out" | grep -v '^WARNING: Location' >&2
        return 1
    fi
}
quiet .venv/bin/python -m pip install -q --upgrade pip
# Pin torch's CPU build first: a plain dependency on torch would pull a multi-GB CUDA build.
.venv/bin/python -c 'import torch' 2>/dev/null || quiet .venv/bin/pip install -q torch==2.13.0
quiet .venv/bin/pip install -q -e ".[dev,semantic,sentence-transformers,tiktoken,tokens,redis,bench,openai,anthropic,gemini,pydantic-ai,openai-agents,langchain]"
.venv/bin/python -c 'import toolscout' >/dev/null

# Real MCP servers for the gateway's tests and examples/mcp_servers.json, into .mcp-servers/
# (git-ignored). Each npm tree under mcp-servers/ installs exactly as its committed lock file says;
# a stamp of the lock file skips the work when nothing changed.
install_npm_tree() {
    local src="mcp-servers/$1" dst=".mcp-servers/$1"
    if [ -d "$dst/node_modules" ] && cmp -s "$src/package-lock.json" "$dst/.installed-lock.json"; then return; fi
    mkdir -p "$dst"
    cp "$src/package.json" "$src/package-lock.json" "$dst/"
    npm ci --prefix "$dst" --no-audit --no-fund --loglevel=error >/dev/null
    cp "$src/package-lock.json" "$dst/.installed-lock.json"
}
install_npm_tree .
install_npm_tree gitlab
# The PyPI servers depend on their own mcp version, so they get their own venv.
if ! cmp -s mcp-servers/requirements.txt .mcp-servers/pyvenv/.installed-requirements.txt; then
    [ -x .mcp-servers/pyvenv/bin/python ] || "$PYTHON" -m venv .mcp-servers/pyvenv
    quiet .mcp-servers/pyvenv/bin/pip install -q -r mcp-servers/requirements.txt
    .mcp-servers/pyvenv/bin/mcp-server-time --help >/dev/null
    cp mcp-servers/requirements.txt .mcp-servers/pyvenv/.installed-requirements.txt
fi
# Debian packages the tests use: redis-server (Redis session store) and chromium (the gateway's web
# page, driven by playwright against the system browser; no browser is downloaded). Tests that need
# a missing one skip, saying why, on a developer machine and fail under CI.
missing=()
command -v redis-server >/dev/null || missing+=(redis-server)
command -v chromium >/dev/null || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
    if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
        apt-get update -qq >/dev/null 2>&1 || true
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 \
            || echo "setup: could not install ${missing[*]}; their tests will be skipped" >&2
    else
        echo "setup: ${missing[*]} missing and apt-get is not usable here; their tests will be skipped" >&2
    fi
fi
