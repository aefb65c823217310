"""`EmbeddingSettings`: which embedding backend hybrid search uses, and how it runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ..._validation import NoBool

__all__ = ["EmbeddingSettings"]


class EmbeddingSettings(BaseModel):
    """The embedder behind hybrid search (the ``embeddings`` section of the settings)."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    backend: str = "auto"
    """``auto`` (the first installed local backend: ``onnx``, then ``onnx-minilm``, then ``sentence-transformers``),
    or a registered backend by name: ``onnx`` (toolscout's tool-retrieval model, ``docs/MODEL.md``), ``onnx-minilm``
    (the plain all-MiniLM-L6-v2), ``sentence-transformers``, ``openai-compatible``."""
    threads: Annotated[int, NoBool, Field(ge=1, le=64)] | None = None
    """CPU threads a local model may use (null: half the CPUs, at least 1, at most 4)."""
    model: str | None = None
    """The model: a local directory or cached Hugging Face id for ``sentence-transformers``, an ONNX file for
    ``onnx`` (with ``tokenizer``), the server's model name for ``openai-compatible`` (required there)."""
    tokenizer: Path | None = None
    """The ``tokenizer.json`` of an ONNX ``model`` (null: the packaged all-MiniLM-L6-v2 tokenizer)."""
    url: str | None = None
    """The ``openai-compatible`` endpoint: API root (``http://localhost:11434/v1``) or full embeddings URL."""
    api_key_env: str | None = None
    """The environment variable holding the endpoint's API key (keys never live in config files)."""
    query_prefix: str | None = None
    """Text put before each query for the endpoint's model (null: the model's known prefix, if any)."""
    document_prefix: str | None = None
    """Text put before each tool text for the endpoint's model (null: the model's known prefix, if any)."""
    cache_dir: Path | None = None
    """Where tool embeddings and the int8 model built from the packaged one are cached (null:
    ``$TOOLSCOUT_CACHE_DIR``, else the user cache directory)."""
    languages: tuple[Annotated[str, Field(pattern=r"^([a-z]{2}|\*)$")], ...] | None = None
    """The languages the model knows, as ISO 639-1 codes (``["en"]``); null or ``["*"]``: every language.
    Hybrid search weighs the model's similarities by the share of a query's words in them, so a request
    in a language the model does not know ranks lexically. Off by default: the English-trained
    all-MiniLM-L6-v2 still places some Chinese requests right (``bench/multilingual.py``)."""

    def known_languages(self) -> frozenset[str] | None:
        """The languages the model knows (None: every language)."""
        return None if self.languages is None or "*" in self.languages else frozenset(self.languages)

    @field_validator("backend")
    @classmethod
    def _registered(cls, value: str) -> str:
        from .._engines import embedder_names  # the registry imports these settings

        known = embedder_names()
        if value != "auto" and value not in known:
            raise ValueError(f"unknown embedding backend {value!r}; use one of: auto, {', '.join(known)}")
        return value

    @model_validator(mode="after")
    def _endpoint_complete(self) -> EmbeddingSettings:
        if self.backend == "openai-compatible" and not (self.url and self.model):
            raise ValueError("the openai-compatible backend needs both url and model")
        return self
