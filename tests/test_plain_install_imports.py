"""Every public package imports on a plain install: an optional extra's package is imported only when it is used."""

import subprocess
import sys

OPTIONAL = (
    "redis",
    "opentelemetry.sdk",
    "onnxruntime",
    "tokenizers",
    "sentence_transformers",
    "torch",
    "tiktoken",
    "bpe_openai",
    "langchain_core",
    "langgraph",
    "pydantic_ai",
    "agents",
    "anthropic",
    "openai",
    "google.genai",
)

PACKAGES = (
    "toolscout",
    "toolscout.catalog",
    "toolscout.cli",
    "toolscout.compat",
    "toolscout.disclosure",
    "toolscout.dispatch",
    "toolscout.gateway",
    "toolscout.observe",
    "toolscout.offload",
    "toolscout.providers",
    "toolscout.search",
    "toolscout.search.embeddings",
    "toolscout.search.languages",
    "toolscout.session",
)


def test_every_public_package_imports_with_the_optional_extras_missing() -> None:
    blocked = "; ".join(f"sys.modules[{name!r}] = None" for name in OPTIONAL)
    imports = "; ".join(f"import {name}" for name in PACKAGES)
    done = subprocess.run(
        [sys.executable, "-c", f"import sys; {blocked}; {imports}"], capture_output=True, text=True, timeout=120
    )

    assert done.returncode == 0, done.stderr
