"""A local document portal serving a corpus behind a login (demo site and crawler test bed)."""

from demo.portal.app import CSRF_COOKIE, FAULT_DOCUMENTS, SESSION_COOKIE, PortalConfig, PortalState, create_app
from demo.portal.corpus import CorpusDocument, CorpusIndex, WikiAttachment, WikiTopic
from demo.portal.server import RunningPortal, run_portal, serve_portal

__all__ = [
    "CSRF_COOKIE",
    "FAULT_DOCUMENTS",
    "SESSION_COOKIE",
    "CorpusDocument",
    "CorpusIndex",
    "WikiAttachment",
    "WikiTopic",
    "PortalConfig",
    "PortalState",
    "RunningPortal",
    "create_app",
    "run_portal",
    "serve_portal",
]
