#!/usr/bin/env bash
# Set up what the gateway example needs: .venv with toolscout and its default hybrid search
# (toolscout[semantic]: the ONNX embedder, no torch), and the real MCP servers of
# examples/mcp_servers.json (.mcp-servers/). Safe to run again; steps already done are skipped.
# The development set-up (tests, every extra, Redis, Chromium) is scripts/dev-setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null || PYTHON=python3
STEP_PREFIX=setup
source scripts/_lib.sh

[ -x .venv/bin/python ] || { step "creating .venv"; "$PYTHON" -m venv .venv; }
# pip takes seconds even with nothing to do: a stamp of pyproject.toml skips it while toolscout still
# imports from this checkout and its dependencies have not changed.
if ! { cmp -s pyproject.toml .venv/.installed-pyproject.toml &&
    .venv/bin/python -c 'import importlib.util as u, sys; sys.exit(not u.find_spec("toolscout").origin.startswith(sys.argv[1]))' \
        "$PWD/src/" 2>/dev/null; }; then
    step "installing toolscout with hybrid search into .venv"
    quiet .venv/bin/pip install -q -e ".[semantic]"
    .venv/bin/python -c 'import toolscout' >/dev/null
    cp pyproject.toml .venv/.installed-pyproject.toml
fi

# Real MCP servers for examples/mcp_servers.json, into .mcp-servers/ (git-ignored). Each npm tree
# under mcp-servers/ installs exactly as its committed lock file says; a stamp of the lock file
# skips the work when nothing changed.
install_npm_tree() {
    local src="mcp-servers/$1" dst=".mcp-servers/$1"
    if [ -d "$dst/node_modules" ] && cmp -s "$src/package-lock.json" "$dst/.installed-lock.json"; then return; fi
    step "installing the npm MCP servers of mcp-servers/$1"
    mkdir -p "$dst"
    cp "$src/package.json" "$src/package-lock.json" "$dst/"
    npm ci --prefix "$dst" --no-audit --no-fund --loglevel=error >/dev/null
    cp "$src/package-lock.json" "$dst/.installed-lock.json"
}
install_npm_tree . &
npm_root=$!
install_npm_tree gitlab &
npm_gitlab=$!
# The PyPI servers depend on their own mcp version, so they get their own venv.
if ! cmp -s mcp-servers/requirements.txt .mcp-servers/pyvenv/.installed-requirements.txt; then
    step "installing the PyPI MCP servers (time, git, fetch)"
    [ -x .mcp-servers/pyvenv/bin/python ] || "$PYTHON" -m venv .mcp-servers/pyvenv
    quiet .mcp-servers/pyvenv/bin/pip install -q -r mcp-servers/requirements.txt
    .mcp-servers/pyvenv/bin/mcp-server-time --help >/dev/null
    cp mcp-servers/requirements.txt .mcp-servers/pyvenv/.installed-requirements.txt
fi
wait "$npm_root"
wait "$npm_gitlab"
step "done"
