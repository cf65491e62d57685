"""A server MITRA works with that does not answer is one clear line, in the CLI and the
app, whether it was down from the start or went away mid-run (a real `chroma run`)."""

from __future__ import annotations

import json
import signal

import httpx
import pytest
from tests.conftest import closed_port
from tests.fixtures.samples import ANALYSES, write_jsonl


@pytest.fixture
def mitra(monkeypatch, cli_in):
    """``cli_in`` with MITRA_* settings for the call (``chroma_port="8000"``)."""
    def run(*args: str, **env: str):
        for key, value in env.items():
            monkeypatch.setenv(f"MITRA_{key.upper()}", value)
        return cli_in(*args)

    return run


def one_line_error(result) -> str:
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert "internal error" not in text and "Traceback" not in text
    return text


def test_a_chroma_server_that_never_answered(mitra, tmp_path):
    result = mitra("stats", data_dir=str(tmp_path), chroma_host="127.0.0.1", chroma_port=str(closed_port()))
    assert "the Chroma server (MITRA_CHROMA_HOST/_PORT) does not answer" in one_line_error(result)


def test_a_chroma_server_gone_mid_run(mitra, tmp_path, embedder, monkeypatch):
    """Indexed into a real server, which then stops: the next search says so in one line."""
    import subprocess

    from tests.conftest import REPO
    from tests.fixtures.browser import wait_healthy

    port = closed_port()
    server = subprocess.Popen([str(REPO / ".venv/bin/chroma"), "run", "--host", "127.0.0.1", "--port", str(port),
                               "--path", str(tmp_path / "chroma")], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        wait_healthy(f"http://127.0.0.1:{port}", server, path="/api/v2/heartbeat")
        env = {"data_dir": str(tmp_path / "kb"), "chroma_host": "127.0.0.1", "chroma_port": str(port), "reranker": "none"}
        indexed = mitra("index-jsonl", str(write_jsonl(tmp_path / "a.jsonl", ANALYSES[:2])), **env)
        assert indexed.exit_code == 0, indexed.output
        analysis = ANALYSES[0]["analysis_id"]
        assert json.loads(mitra("search", "--analysis", analysis, "background", "--json", **env).stdout)["hits"]
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    with pytest.raises(httpx.TransportError):
        httpx.get(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=2)
    text = one_line_error(mitra("search", "--analysis", analysis, "background", **env))
    assert f"the server at 127.0.0.1:{port} does not answer" in text or "the Chroma server" in text


def test_the_app_says_the_chroma_server_is_down(app_env, tmp_path):
    from streamlit.testing.v1 import AppTest

    from tests.conftest import REPO

    app_env(data_dir=tmp_path, chroma_host="127.0.0.1", chroma_port=closed_port())
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120).run()
    assert not at.exception, at.exception
    assert any("the Chroma server (MITRA_CHROMA_HOST/_PORT) does not answer" in e.value for e in at.error), \
        [e.value for e in at.error]
