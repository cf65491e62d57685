"""Whether a document's portal answers, checked once a minute per server: a link to a
portal that is down (the demo's, stopped after its crawl) is a dead end, so the app offers
it only while the server accepts a connection."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

import streamlit as st


@st.cache_data(ttl=60, show_spinner=False)
def _server_up(host: str, port: int) -> bool:
    try:
        socket.create_connection((host, port), timeout=0.5).close()
        return True
    except OSError:
        return False


def reachable(url: str) -> bool:
    """Whether the server of ``url`` accepts a connection now (cached for a minute)."""
    parts = urlsplit(url)
    if not parts.hostname:
        return False
    return _server_up(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80))
