"""A stand-in Ollama server for tests: no Ollama binary exists here.

It speaks Ollama's real wire protocol on 127.0.0.1 — ``GET /api/tags`` (the pulled
models), ``POST /api/chat`` (NDJSON stream of message pieces ending with a ``done``
record carrying the token counts, or one JSON object when ``stream`` is false, and
HTTP 404 ``{"error": ...}`` for a model that is not pulled) — so ``ollama`` and
``langchain-ollama`` run unmodified against it. It records every chat request, so a
test can check the exact prompt the system sent.
"""

from __future__ import annotations

import json
import re
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Iterator

Reply = Callable[[dict], str]


@dataclass
class OllamaStub:
    pulled: list[str]
    reply: Reply = lambda request: "Stub answer [1]."  # noqa: E731
    delay_s: float = 0.0  # before the first byte of a chat response: for timeouts
    chats: list[dict] = field(default_factory=list)  # every /api/chat request body
    url: str = ""

    def model_entry(self, name: str) -> dict:
        return {
            "name": name,
            "model": name,
            "modified_at": "2025-01-01T00:00:00Z",
            "size": 4372824384,
            "digest": "sha256:" + "0" * 64,
            "details": {"format": "gguf", "family": "llama", "families": ["llama"],
                        "parameter_size": "7.2B", "quantization_level": "Q4_K_M"},
        }


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


def _handler(stub: OllamaStub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # quiet test output
            pass

        def _json(self, status: int, body: dict) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path == "/api/tags":
                self._json(200, {"models": [stub.model_entry(m) for m in stub.pulled]})
            elif self.path == "/":
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b"Ollama is running")
            else:
                self._json(404, {"error": "not found"})

        def do_POST(self) -> None:
            try:
                self._chat()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test): nobody to answer

        def _chat(self) -> None:
            if self.path != "/api/chat":
                self._json(404, {"error": "not found"})
                return
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            stub.chats.append(request)
            model = request.get("model", "")
            if model not in stub.pulled:
                self._json(404, {"error": f"model '{model}' not found"})
                return
            time.sleep(stub.delay_s)
            text = stub.reply(request)
            for stop in (request.get("options") or {}).get("stop") or []:
                text = text.split(stop)[0]
            prompt_tokens = sum(len(m.get("content", "").split()) for m in request["messages"])
            pieces = re.findall(r"\s*\S+", text) or [""]
            final = {
                "model": model, "created_at": _now(), "done": True, "done_reason": "stop",
                "total_duration": 1_000_000, "load_duration": 1000, "prompt_eval_count": prompt_tokens,
                "prompt_eval_duration": 1000, "eval_count": len(pieces), "eval_duration": 1000,
            }
            if request.get("stream", True) is False:
                self._json(200, {**final, "message": {"role": "assistant", "content": text}})
                return
            # Like Ollama: one JSON object per line, the connection closed at the end.
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.end_headers()
            for piece in pieces:
                line = {"model": model, "created_at": _now(),
                        "message": {"role": "assistant", "content": piece}, "done": False}
                self.wfile.write(json.dumps(line).encode() + b"\n")
                self.wfile.flush()
            self.wfile.write(json.dumps({**final, "message": {"role": "assistant", "content": ""}}).encode() + b"\n")

    return Handler


@contextmanager
def running_stub(stub: OllamaStub) -> Iterator[OllamaStub]:
    """Serve ``stub`` on a free port of 127.0.0.1 for the duration of the block."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(stub))
    server.daemon_threads = True
    host, port = server.server_address[:2]
    stub.url = f"http://{host}:{port}"
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        yield stub
    finally:
        server.shutdown()
        server.server_close()
