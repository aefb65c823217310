from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from toolscout.search.embeddings._base import EmbeddingError
from toolscout.search.embeddings._openai_compat import OpenAICompatibleEmbedder, known_prefixes

Reply = Callable[[dict[str, object]], tuple[int, bytes]]


def _vectors(body: dict[str, object], dim: int = 3) -> tuple[int, bytes]:
    """Answer like OpenAI: one vector per input (its length and index in it), listed in reverse order."""
    inputs = body["input"]
    assert isinstance(inputs, list)
    data = [
        {"object": "embedding", "index": i, "embedding": [len(text), i + 1.0] + [1.0] * (dim - 2)}
        for i, text in enumerate(inputs)
    ]
    return 200, json.dumps({"object": "list", "data": data[::-1], "model": body["model"]}).encode()


@dataclass
class EmbeddingServer:
    url: str
    requests: list[tuple[str, dict[str, str], dict[str, object]]] = field(default_factory=list)
    reply: Reply = _vectors


@pytest.fixture(scope="module")
def running_server() -> Iterator[EmbeddingServer]:
    state = EmbeddingServer(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append((self.path, dict(self.headers), body))
            status, payload = state.reply(body)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield state
    httpd.shutdown()
    httpd.server_close()
    thread.join()


@pytest.fixture
def server(running_server: EmbeddingServer) -> EmbeddingServer:
    running_server.requests.clear()
    running_server.reply = _vectors
    return running_server


def test_known_models_get_their_prefixes_and_documents_go_in_batches(server: EmbeddingServer) -> None:
    with OpenAICompatibleEmbedder(server.url, "nomic-embed-text:v1.5", batch_size=2) as embedder:
        documents = embedder.embed_documents(["a", "bb", "ccc", "dddd", "eeeee"])
        query = embedder.embed_query("find it")

    assert [path for path, _, _ in server.requests] == ["/v1/embeddings"] * 4
    assert [body["model"] for _, _, body in server.requests] == ["nomic-embed-text:v1.5"] * 4
    assert [body["input"] for _, _, body in server.requests] == [
        ["search_document: a", "search_document: bb"],
        ["search_document: ccc", "search_document: dddd"],
        ["search_document: eeeee"],
        ["search_query: find it"],
    ]
    assert documents.shape == (5, 3)
    assert documents.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(documents, axis=1), 1.0, rtol=1e-6)
    assert query.shape == (3,)


def test_vectors_follow_the_index_field_not_the_reply_order(server: EmbeddingServer) -> None:
    with OpenAICompatibleEmbedder(server.url, "m") as embedder:
        documents = embedder.embed_documents(["x", "yyyyyy"])

    expected = np.array([[1.0, 1.0, 1.0], [6.0, 2.0, 1.0]])
    np.testing.assert_allclose(documents, expected / np.linalg.norm(expected, axis=1, keepdims=True), rtol=1e-6)


def test_given_prefixes_replace_the_known_ones_and_the_api_key_is_a_bearer_token(server: EmbeddingServer) -> None:
    with OpenAICompatibleEmbedder(
        server.url, "intfloat/e5-small-v2", api_key="sk-test", query_prefix="Q> ", document_prefix=""
    ) as embedder:
        embedder.embed_documents(["doc"])
        embedder.embed_query("question")

    assert [body["input"] for _, _, body in server.requests] == [["doc"], ["Q> question"]]
    assert {headers["Authorization"] for _, headers, _ in server.requests} == {"Bearer sk-test"}


@pytest.mark.parametrize(
    ("model", "prefixes"),
    [
        pytest.param("nomic-ai/nomic-embed-text-v1.5", ("search_query: ", "search_document: "), id="nomic"),
        pytest.param("intfloat/multilingual-e5-base", ("query: ", "passage: "), id="e5"),
        pytest.param("e5-mistral-7b-instruct", ("", ""), id="e5-mistral-has-no-e5-prefix"),
        pytest.param(
            "BAAI/bge-small-en-v1.5", ("Represent this sentence for searching relevant passages: ", ""), id="bge-en"
        ),
        pytest.param("bge-m3", ("", ""), id="bge-m3-needs-none"),
        pytest.param("text-embedding-3-small", ("", ""), id="openai"),
    ],
)
def test_known_prefixes_match_model_names(model: str, prefixes: tuple[str, str]) -> None:
    assert known_prefixes(model) == prefixes


@pytest.mark.parametrize(
    "base_url",
    ["http://127.0.0.1:{port}", "http://127.0.0.1:{port}/v1/", "http://127.0.0.1:{port}/v1/embeddings"],
)
def test_base_url_may_be_the_server_the_api_root_or_the_endpoint(server: EmbeddingServer, base_url: str) -> None:
    port = server.url.split(":")[-1].split("/")[0]
    with OpenAICompatibleEmbedder(base_url.format(port=port), "m") as embedder:
        embedder.embed_query("q")

    assert server.requests[0][0] == "/v1/embeddings"


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param(lambda body: (500, b'{"error": "model not loaded"}'), id="http-500"),
        pytest.param(lambda body: (200, b"<html>not json</html>"), id="bad-json"),
        pytest.param(lambda body: (200, b'{"data": "nope"}'), id="no-data-list"),
        pytest.param(lambda body: (200, b'{"data": []}'), id="too-few-vectors"),
        pytest.param(lambda body: (200, b'{"data": [{"index": 0, "embedding": [0.0, 0.0]}]}'), id="zero-vector"),
        pytest.param(lambda body: (200, b'{"data": [{"index": 0, "embedding": ["a", "b"]}]}'), id="not-numbers"),
    ],
)
def test_bad_replies_raise_embedding_error(server: EmbeddingServer, reply: Reply) -> None:
    server.reply = reply
    with OpenAICompatibleEmbedder(server.url, "m") as embedder, pytest.raises(EmbeddingError):
        embedder.embed_query("q")


def test_a_change_of_dimension_between_calls_raises_embedding_error(server: EmbeddingServer) -> None:
    with OpenAICompatibleEmbedder(server.url, "m") as embedder:
        embedder.embed_documents(["doc"])
        server.reply = lambda body: _vectors(body, dim=5)
        with pytest.raises(EmbeddingError):
            embedder.embed_query("q")


def test_an_unreachable_endpoint_raises_embedding_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    with OpenAICompatibleEmbedder(f"http://127.0.0.1:{closed_port}/v1", "m", timeout=2.0) as embedder:
        with pytest.raises(EmbeddingError):
            embedder.embed_query("q")


def test_model_id_changes_with_the_document_prefix() -> None:
    with (
        OpenAICompatibleEmbedder("http://127.0.0.1:9/v1", "m") as plain,
        OpenAICompatibleEmbedder("http://127.0.0.1:9/v1", "m", document_prefix="passage: ") as prefixed,
    ):
        assert plain.model_id != prefixed.model_id
