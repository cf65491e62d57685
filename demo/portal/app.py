"""A small document portal serving a corpus behind a login: the crawler's demo site and test bed.

It behaves like a collaboration's internal document database where that matters to a
crawler: a login form with a CSRF token, server-side sessions that expire, an analysis
list whose rows are rendered by JavaScript from a JSON endpoint (so only a real browser
sees them), per-analysis pages with versioned document links, and downloads that need the
session. An analysis may link its wiki topic (a TWiki page with the wiki's navigation
chrome, edit and logout links, and a table of attached files). With ``faults`` on, the last
analysis also links to documents that stall, fail with HTTP 500, are missing (404) or are
HTML served as a PDF, and every wiki topic lists an attachment that is missing (404) and a
talk whose upload was cut off (a truncated PowerPoint file).
"""

from __future__ import annotations

import asyncio
import hmac
import math
import secrets
import threading
import time
from pathlib import Path
from urllib.parse import quote

from pydantic import BaseModel, Field, SecretStr
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from demo.portal.corpus import CorpusDocument, CorpusIndex, WikiAttachment

HERE = Path(__file__).resolve().parent
SESSION_COOKIE = "portal_session"
CSRF_COOKIE = "portal_csrf"

# doc_id -> link title of the fault documents attached to the last analysis.
FAULT_DOCUMENTS = {
    "FAULT-SLOW": "Analysis note (slow mirror)",
    "FAULT-500": "Analysis note (server error)",
    "FAULT-404": "Withdrawn note (missing file)",
    "FAULT-NOTPDF": "Analysis note (HTML served as PDF)",
}

# file name -> comment of the fault attachments every wiki topic lists with faults on.
WIKI_FAULTS = {
    "withdrawn_talk.pptx": "Talk withdrawn by its speaker (missing file)",
    "truncated_talk.pptx": "Talk (upload interrupted)",
}


class PortalConfig(BaseModel):
    corpus_dir: Path
    username: str = "physicist"
    password: SecretStr = SecretStr("orion-demo")
    session_ttl_s: float = Field(3600.0, gt=0)
    page_size: int = Field(2, ge=1)
    render_delay_ms: int = Field(150, ge=0, description="JS renders the list rows this long after load")
    faults: bool = False
    slow_s: float = Field(30.0, description="how long the slow fault document stalls before answering")


class PortalState:
    """Server-side sessions and counters; tests read the counters and expire sessions."""

    def __init__(self, ttl_s: float) -> None:
        self.ttl_s = ttl_s
        self.logins = 0
        self.failed_logins = 0
        self.downloads = 0
        self.edits = 0  # wiki edit pages opened: a crawler must never follow an edit link (it locks the topic)
        self._sessions: dict[str, float] = {}  # token -> expiry (monotonic clock)
        self._expire_at_download: int | None = None
        self._lock = threading.Lock()
        self.closing = threading.Event()  # set on shutdown: stalled requests give up

    def open_session(self) -> str:
        token = secrets.token_urlsafe(24)
        with self._lock:
            self._sessions[token] = time.monotonic() + self.ttl_s
            self.logins += 1
        return token

    def valid(self, token: str | None) -> bool:
        with self._lock:
            return token is not None and self._sessions.get(token, 0.0) > time.monotonic()

    def close_session(self, token: str | None) -> None:
        with self._lock:
            self._sessions.pop(token or "", None)

    def expire_sessions(self) -> None:
        with self._lock:
            self._sessions.clear()

    def expire_after_downloads(self, count: int) -> None:
        """Test hook: expire every session once ``count`` more PDFs were served (mid-crawl expiry)."""
        self._expire_at_download = self.downloads + count

    def count_download(self) -> None:
        self.downloads += 1
        if self.downloads == self._expire_at_download:
            self._expire_at_download = None
            self.expire_sessions()


def _local_path(target: str | None, default: str) -> str:
    """Only same-site paths are followed after login (no open redirect)."""
    return target if target and target.startswith("/") and not target.startswith("//") else default


def create_app(config: PortalConfig) -> Starlette:
    index = CorpusIndex.load(config.corpus_dir)
    state = PortalState(config.session_ttl_s)
    templates = Jinja2Templates(directory=HERE / "templates")
    fault_analysis = index.analyses[-1].id if config.faults and index.analyses else None

    def login_redirect(request: Request) -> RedirectResponse:
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        expired = "&expired=1" if SESSION_COOKIE in request.cookies else ""
        return RedirectResponse(f"/login?next={quote(target)}{expired}", status_code=303)

    def logged_in(request: Request) -> bool:
        return state.valid(request.cookies.get(SESSION_COOKIE))

    def login_form(request: Request, next_path: str, error: str | None = None, status: int = 200) -> Response:
        csrf = secrets.token_urlsafe(24)
        response = templates.TemplateResponse(
            request, "login.html",
            {"csrf": csrf, "next": next_path, "error": error, "expired": request.query_params.get("expired")},
            status_code=status,
        )
        response.set_cookie(CSRF_COOKIE, csrf, httponly=True, samesite="strict")
        return response

    def message(request: Request, title: str, text: str, status: int) -> Response:
        return templates.TemplateResponse(request, "message.html", {"title": title, "text": text}, status_code=status)

    async def login_page(request: Request) -> Response:
        return login_form(request, _local_path(request.query_params.get("next"), "/analyses"))

    async def login_submit(request: Request) -> Response:
        form = await request.form()
        next_path = _local_path(str(form.get("next", "")), "/analyses")
        cookie, sent = request.cookies.get(CSRF_COOKIE, ""), str(form.get("csrf_token", ""))
        if not cookie or not hmac.compare_digest(cookie, sent):
            return message(request, "Forbidden", "CSRF token missing or invalid. Reload the login page and try again.", 403)
        user_ok = hmac.compare_digest(str(form.get("username", "")), config.username)
        password_ok = hmac.compare_digest(str(form.get("password", "")), config.password.get_secret_value())
        if not (user_ok and password_ok):
            state.failed_logins += 1
            return login_form(request, next_path, "Invalid username or password.", 401)
        response = RedirectResponse(next_path, status_code=303)
        response.set_cookie(SESSION_COOKIE, state.open_session(), httponly=True, samesite="lax")
        response.delete_cookie(CSRF_COOKIE)
        return response

    async def logout(request: Request) -> Response:
        state.close_session(request.cookies.get(SESSION_COOKIE))
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(SESSION_COOKIE)
        return response

    def page_number(request: Request) -> int | None:
        pages = max(1, math.ceil(len(index.analyses) / config.page_size))
        raw = request.query_params.get("page", "1")
        return int(raw) if raw.isdigit() and 1 <= int(raw) <= pages else None

    async def analyses_page(request: Request) -> Response:
        if not logged_in(request):
            return login_redirect(request)
        page = page_number(request)
        if page is None:
            return message(request, "Not found", "No such page of the analysis list.", 404)
        return templates.TemplateResponse(
            request, "analyses.html", {"page": page, "delay": config.render_delay_ms, "logged_in": True}
        )

    async def analyses_api(request: Request) -> Response:
        if not logged_in(request):
            return JSONResponse({"error": "login required"}, status_code=401)
        page = page_number(request)
        if page is None:
            return JSONResponse({"error": "no such page"}, status_code=404)
        rows = index.analyses[(page - 1) * config.page_size : page * config.page_size]
        return JSONResponse({
            "page": page,
            "pages": max(1, math.ceil(len(index.analyses) / config.page_size)),
            "total": len(index.analyses),
            "analyses": [{"id": a.id, "title": a.title, "url": f"/analysis/{a.id}"} for a in rows],
        })

    def links(analysis_id: str) -> list[dict[str, str]]:
        docs: list[dict[str, str]] = [
            {"doc_id": d.doc_id, "version": d.version, "title": d.title, "kind": d.kind,
             "url": f"/files/{analysis_id}/{d.doc_id}/{d.version}.pdf"}
            for d in index.documents_of(analysis_id)
        ]
        if analysis_id == fault_analysis:
            docs += [{"doc_id": doc_id, "version": "v1", "title": title, "kind": "Fault injection",
                      "url": f"/files/{analysis_id}/{doc_id}/v1.pdf"} for doc_id, title in FAULT_DOCUMENTS.items()]
        return docs

    async def analysis_page(request: Request) -> Response:
        if not logged_in(request):
            return login_redirect(request)
        analysis = index.analysis(request.path_params["analysis_id"])
        if analysis is None:
            return message(request, "Not found", "No such analysis.", 404)
        return templates.TemplateResponse(request, "analysis.html", {
            "analysis": analysis, "documents": links(analysis.id), "wiki": index.topics_of(analysis.id),
            "logged_in": True,
        })

    def attachments(topic_name: str) -> list[WikiAttachment]:
        topic = index.topic(topic_name)
        listed = list(topic.attachments) if topic else []
        if config.faults and listed:
            listed += [listed[0].model_copy(update={"name": name, "title": title})
                       for name, title in WIKI_FAULTS.items()]
        return listed

    async def wiki_page(request: Request) -> Response:
        if not logged_in(request):
            return login_redirect(request)
        topic = index.topic(request.path_params["topic"])
        if topic is None:
            return message(request, "Not found", "No such topic in the ORION web.", 404)
        return templates.TemplateResponse(request, "wiki.html", {
            "topic": topic, "body": index.path(topic).read_text(), "attachments": attachments(topic.topic),
            "user": config.username,
        })

    async def wiki_edit(request: Request) -> Response:
        if not logged_in(request):
            return login_redirect(request)
        state.edits += 1
        return message(request, "Topic locked", "You are now editing this topic; it is locked for others.", 200)

    async def wiki_attachment(request: Request) -> Response:
        if not logged_in(request):
            return login_redirect(request)
        topic_name, name = request.path_params["topic"], request.path_params["name"]
        found = next((a for a in attachments(topic_name) if a.name == name), None)
        if found is None or name == "withdrawn_talk.pptx":
            return message(request, "Not found", "No such attachment.", 404)
        state.count_download()
        data = index.path(found).read_bytes()
        if name == "truncated_talk.pptx":
            return Response(data[: len(data) // 2], media_type=found.media_type)
        return Response(data, media_type=found.media_type)

    def serve(document: CorpusDocument) -> Response:
        state.count_download()
        return FileResponse(index.path(document), media_type="application/pdf",
                            filename=f"{document.doc_id}_{document.version}.pdf")

    async def download(request: Request) -> Response:
        if not logged_in(request):
            return login_redirect(request)
        analysis_id, doc_id, version = (request.path_params[k] for k in ("analysis_id", "doc_id", "version"))
        if analysis_id == fault_analysis and doc_id in FAULT_DOCUMENTS:
            if doc_id == "FAULT-SLOW":
                deadline = time.monotonic() + config.slow_s
                while time.monotonic() < deadline:
                    if state.closing.is_set():
                        return Response("Shutting down", status_code=503, media_type="text/plain")
                    await asyncio.sleep(0.05)
                return serve(index.documents_of(analysis_id)[0])
            if doc_id == "FAULT-500":
                return Response("Internal Server Error", status_code=500, media_type="text/plain")
            if doc_id == "FAULT-NOTPDF":
                return Response("<!DOCTYPE html><html><body><h1>Document moved</h1></body></html>",
                                media_type="application/pdf")
        document = index.document(analysis_id, doc_id, version)
        if document is None:
            return message(request, "Not found", "No such document.", 404)
        return serve(document)

    async def home(request: Request) -> Response:
        return RedirectResponse("/analyses", status_code=303)

    app = Starlette(routes=[
        Route("/", home),
        Route("/login", login_page, methods=["GET"]),
        Route("/login", login_submit, methods=["POST"]),
        Route("/logout", logout),
        Route("/analyses", analyses_page),
        Route("/api/analyses", analyses_api),
        Route("/analysis/{analysis_id}", analysis_page),
        Route("/files/{analysis_id}/{doc_id}/{version}.pdf", download),
        Route("/twiki/bin/view/ORION/{topic}", wiki_page),
        Route("/twiki/bin/edit/ORION/{topic}", wiki_edit),
        Route("/twiki/pub/ORION/{topic}/{name}", wiki_attachment),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ])
    app.state.portal = state
    return app
