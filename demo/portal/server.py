"""Run the portal: in a background thread for tests and demos, or in the foreground."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import uvicorn

from demo.portal.app import PortalConfig, PortalState, create_app

_START_TIMEOUT_S = 10.0


@dataclass
class RunningPortal:
    url: str  # base URL, no trailing slash
    state: PortalState
    config: PortalConfig


def _server(config: PortalConfig, host: str, port: int) -> tuple[uvicorn.Server, PortalState]:
    app = create_app(config)
    server = uvicorn.Server(uvicorn.Config(
        app, host=host, port=port, log_level="warning", lifespan="off", timeout_graceful_shutdown=1
    ))
    return server, app.state.portal


@contextmanager
def serve_portal(config: PortalConfig, host: str = "127.0.0.1", port: int = 0) -> Iterator[RunningPortal]:
    """Serve the portal on ``host:port`` (0 = a free port) until the ``with`` block ends."""
    server, state = _server(config, host, port)
    # Binding here, before the thread starts, makes the port known and race-free.
    sock = socket.create_server((host, port))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="portal", daemon=True)
    thread.start()
    deadline = time.monotonic() + _START_TIMEOUT_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            sock.close()
            raise RuntimeError(f"the portal did not start on {host}:{sock.getsockname()[1]}")
        time.sleep(0.02)
    try:
        yield RunningPortal(url=f"http://{host}:{sock.getsockname()[1]}", state=state, config=config)
    finally:
        state.closing.set()
        server.should_exit = True
        thread.join(timeout=5)
        sock.close()


def run_portal(config: PortalConfig, host: str, port: int) -> None:
    """Serve in the foreground until interrupted."""
    server, _ = _server(config, host, port)
    server.run()
