"""The local document portal, over real HTTP (the browser-side behaviour is covered by test_crawl)."""

from __future__ import annotations

import hashlib
import time

import pytest
import requests

from demo.portal import CSRF_COOKIE, PortalConfig, serve_portal


def login(portal, password: str | None = None) -> tuple[requests.Session, requests.Response]:
    """Log in through the form, CSRF token included, as a browser would."""
    http = requests.Session()
    http.get(f"{portal.url}/login", timeout=5)
    response = http.post(f"{portal.url}/login", timeout=5, data={
        "csrf_token": http.cookies[CSRF_COOKIE],
        "username": portal.config.username,
        "password": password or portal.config.password.get_secret_value(),
        "next": "/analyses",
    })
    return http, response


def test_login_sets_a_session_and_counts_it(portal):
    before = portal.state.logins
    http, response = login(portal)
    assert response.status_code == 200 and response.url.endswith("/analyses")
    assert 'id="logout"' in response.text
    assert portal.state.logins == before + 1


def test_login_without_a_valid_csrf_token_is_refused(portal):
    http = requests.Session()
    http.get(f"{portal.url}/login", timeout=5)
    form = {"username": portal.config.username, "password": portal.config.password.get_secret_value()}
    for token in (None, "forged"):
        data = form if token is None else {**form, "csrf_token": token}
        response = http.post(f"{portal.url}/login", data=data, timeout=5)
        assert response.status_code == 403
        assert "CSRF token missing or invalid" in response.text


def test_wrong_password_shows_an_error_on_the_login_page(portal):
    before = portal.state.failed_logins
    _, response = login(portal, password="wrong")
    assert response.status_code == 401
    assert 'id="login-error"' in response.text and "Invalid username or password." in response.text
    assert portal.state.failed_logins == before + 1


def test_everything_behind_the_login(portal):
    http = requests.Session()
    for path in ("/analyses", "/analysis/HIG-24-001", "/files/HIG-24-001/AN-2024-017/v1.pdf"):
        response = http.get(portal.url + path, allow_redirects=False, timeout=5)
        assert response.status_code == 303
        assert response.headers["location"].startswith("/login?next=")
    api = http.get(f"{portal.url}/api/analyses", timeout=5)
    assert api.status_code == 401 and api.json() == {"error": "login required"}


def test_listing_rows_come_only_from_the_json_api(portal, demo_corpus):
    http, _ = login(portal)
    html = http.get(f"{portal.url}/analyses", timeout=5).text
    assert 'data-state="loading"' in html and "listing.js" in html
    assert not any(a.id in html for a in demo_corpus.analyses)  # no rows without JavaScript
    pages = [http.get(f"{portal.url}/api/analyses?page={n}", timeout=5).json() for n in (1, 2, 3)]
    assert [p["pages"] for p in pages] == [3, 3, 3] and pages[0]["total"] == 5
    assert [a["id"] for p in pages for a in p["analyses"]] == [a.id for a in demo_corpus.analyses]
    assert http.get(f"{portal.url}/api/analyses?page=4", timeout=5).status_code == 404


def test_analysis_page_shows_abstract_and_versioned_documents(portal, demo_corpus):
    http, _ = login(portal)
    html = http.get(f"{portal.url}/analysis/HIG-24-001", timeout=5).text
    assert '<h1 id="analysis-id">HIG-24-001</h1>' in html
    assert "The dominant background is Drell–Yan production" in html
    for version in ("v1", "v2"):
        assert f'href="/files/HIG-24-001/AN-2024-017/{version}.pdf"' in html
        assert f'<span class="version">{version}</span>' in html
    assert "FAULT-" not in html  # the fault documents hang off the last analysis only


def test_download_serves_the_corpus_file(portal, demo_corpus):
    http, _ = login(portal)
    doc = demo_corpus.document("HIG-24-001", "AN-2024-017", "v2")
    response = http.get(f"{portal.url}/files/HIG-24-001/AN-2024-017/v2.pdf", timeout=5)
    assert response.headers["content-type"] == "application/pdf"
    assert hashlib.sha256(response.content).hexdigest() == doc.sha256


def test_expired_session_redirects_back_to_login(portal):
    http, _ = login(portal)
    portal.state.expire_sessions()
    response = http.get(f"{portal.url}/analysis/HIG-24-001", timeout=5)
    assert response.url.startswith(f"{portal.url}/login?next=/analysis/HIG-24-001")
    assert "Your session has expired" in response.text


def test_expiry_after_downloads_hook(portal):
    http, _ = login(portal)
    portal.state.expire_after_downloads(1)
    first = http.get(f"{portal.url}/files/HIG-24-001/AN-2024-017/v1.pdf", timeout=5)
    second = http.get(f"{portal.url}/files/HIG-24-001/AN-2024-017/v1.pdf", timeout=5)
    assert first.content.startswith(b"%PDF-")
    assert "/login?next=" in second.url


def test_login_only_redirects_within_the_site(portal):
    http = requests.Session()
    http.get(f"{portal.url}/login", timeout=5)
    response = http.post(f"{portal.url}/login", allow_redirects=False, timeout=5, data={
        "csrf_token": http.cookies[CSRF_COOKIE], "username": portal.config.username,
        "password": portal.config.password.get_secret_value(), "next": "//evil.example/",
    })
    assert response.headers["location"] == "/analyses"


def test_fault_documents(portal, demo_corpus):
    http, _ = login(portal)
    last = demo_corpus.analyses[-1].id
    html = http.get(f"{portal.url}/analysis/{last}", timeout=5).text
    base = f"{portal.url}/files/{last}"
    for fault in ("FAULT-SLOW", "FAULT-500", "FAULT-404", "FAULT-NOTPDF"):
        assert f"/files/{last}/{fault}/v1.pdf" in html
    assert http.get(f"{base}/FAULT-500/v1.pdf", timeout=5).status_code == 500
    assert http.get(f"{base}/FAULT-404/v1.pdf", timeout=5).status_code == 404
    not_pdf = http.get(f"{base}/FAULT-NOTPDF/v1.pdf", timeout=5)
    assert not_pdf.headers["content-type"] == "application/pdf" and not not_pdf.content.startswith(b"%PDF")
    with pytest.raises(requests.Timeout):
        http.get(f"{base}/FAULT-SLOW/v1.pdf", timeout=0.5)


def test_clean_portal_has_no_faults_and_sessions_time_out(demo_corpus):
    config = PortalConfig(corpus_dir=demo_corpus.root, session_ttl_s=0.5)
    with serve_portal(config) as clean:
        http, _ = login(clean)
        last = demo_corpus.analyses[-1].id
        page = http.get(f"{clean.url}/analysis/{last}", timeout=5)
        assert page.status_code == 200 and "FAULT-" not in page.text
        time.sleep(0.6)
        assert "/login?next=" in http.get(f"{clean.url}/analysis/{last}", timeout=5).url


def test_the_wiki_topic_behind_the_login_with_its_chrome_and_attachments(portal, demo_corpus):
    (topic,) = demo_corpus.wiki
    view, pub = f"{portal.url}/twiki/bin/view/ORION/{topic.topic}", f"{portal.url}/twiki/pub/ORION/{topic.topic}"
    assert requests.get(view, allow_redirects=False, timeout=5).status_code == 303
    http, _ = login(portal)
    analysis = http.get(f"{portal.url}/analysis/HIG-24-001", timeout=5).text
    assert f'class="wiki-link" href="/twiki/bin/view/ORION/{topic.topic}"' in analysis
    page = http.get(view, timeout=5).text
    for chrome in ('id="twiki-top-bar"', 'id="twiki-breadcrumb"', 'id="twiki-left-bar"', 'id="twiki-footer"',
                   'id="logout"', f'/twiki/bin/edit/ORION/{topic.topic}', "https://orion-collaboration.example.org/"):
        assert chrome in page
    assert '<h2 id="AnalysisRecipe">' in page and "Topic revision: r14" in page
    (talk,) = topic.attachments
    response = http.get(f"{pub}/{talk.name}", timeout=5)
    assert response.headers["content-type"] == talk.media_type
    assert hashlib.sha256(response.content).hexdigest() == talk.sha256
    assert http.get(f"{pub}/withdrawn_talk.pptx", timeout=5).status_code == 404
    assert http.get(f"{pub}/truncated_talk.pptx", timeout=5).content == response.content[: talk.size // 2]
    edits = portal.state.edits
    assert "locked" in http.get(f"{portal.url}/twiki/bin/edit/ORION/{topic.topic}", timeout=5).text
    assert portal.state.edits == edits + 1


def test_clean_portal_lists_no_fault_attachments(demo_corpus):
    with serve_portal(PortalConfig(corpus_dir=demo_corpus.root)) as clean:
        http, _ = login(clean)
        page = http.get(f"{clean.url}/twiki/bin/view/ORION/{demo_corpus.wiki[0].topic}", timeout=5).text
        assert page.count('class="attachment-link"') == 1 and "truncated_talk" not in page
