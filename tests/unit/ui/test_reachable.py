"""A portal link is offered only while its server answers (issue 47: the demo's were dead)."""

import socket

from mitra.ui.reachable import reachable
from tests.conftest import closed_port


def test_a_server_that_listens_is_reachable_and_a_stopped_one_is_not():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        assert reachable(f"http://127.0.0.1:{server.getsockname()[1]}/AN-2024-017_v2.pdf#page=3")
    assert not reachable(f"http://127.0.0.1:{closed_port()}/AN-2024-017_v2.pdf")
    assert not reachable("file:///notes/AN-2024-017.pdf")
