#!/usr/bin/env bash
# The development set-up: everything scripts/setup.sh installs, plus every extra (the torch backend,
# provider SDKs, framework adapters, Redis client), the test and lint tools, and the Debian packages
# the tests use. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

STEP_PREFIX=dev-setup
source scripts/_lib.sh
# Pin torch's CPU build first: a plain dependency on torch would pull a multi-GB CUDA build.
if ! .venv/bin/python -c 'import torch' 2>/dev/null; then
    step "installing torch (CPU build) for the sentence-transformers backend"
    quiet .venv/bin/pip install -q torch==2.13.0
fi
step "installing every extra and the development tools"
quiet .venv/bin/pip install -q -e ".[dev,semantic,sentence-transformers,tiktoken,tokens,redis,bench,openai,anthropic,gemini,pydantic-ai,openai-agents,langchain,otel]"

# Debian packages the tests use: redis-server (Redis session store) and chromium (the gateway's web
# page, driven by playwright against the system browser; no browser is downloaded). Tests that need
# a missing one skip, saying why, on a developer machine and fail under CI.
missing=()
command -v redis-server >/dev/null || missing+=(redis-server)
command -v chromium >/dev/null || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
    if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
        step "installing ${missing[*]} (Debian packages)"
        apt-get update -qq >/dev/null 2>&1 || true
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 \
            || echo "dev-setup: could not install ${missing[*]}; their tests will be skipped" >&2
    else
        echo "dev-setup: ${missing[*]} missing and apt-get is not usable here; their tests will be skipped" >&2
    fi
fi
step "done"
