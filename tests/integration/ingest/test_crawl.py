"""The crawler against the real local portal in real headless Chromium (no mocks).

The crawls share one portal and one data dir and run in order: a first crawl (the portal
expires the session after the first PDF it serves), a rerun on the saved session, a rerun
after the portal dropped every session, and the CLI after a cookie import. The portal
links HIG-24-001's wiki topic, whose attachment table lists the talk and two broken files.
A last portal serves HIG-24-001 alone, crawled and indexed by `mitra ingest run`.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from demo.corpus_specs import CONTENT_DIR
from demo.make_corpus import build_corpus
from ingest.sources.crawl import _Crawler, crawl
from ingest.sources.crawl_browser import LoginError
from ingest.sources.crawl_records import CrawlReport, DocLink, FileStatus
from ingest.sources.identity import doc_id_of, next_version
from ingest.sources.manifest import DownloadStatus, Manifest, Stage, StageStatus, VersionKey
from demo.portal import CSRF_COOKIE, PortalConfig, serve_portal
from ingest.sources.profiles import LinksSpec, ProfileError, bundled_profiles, load_profile
from ingest.sources.login import (
    CookieImportError,
    Credentials,
    CredentialsError,
    import_cookies,
    load_session,
    resolve_credentials,
    session_path,
)
from mitra.core.settings import Settings
from mitra.core.types import Analysis

pytestmark = pytest.mark.skipif(
    not (Settings().chromedriver_binary.is_file() and Settings().chromium_binary.is_file()),
    reason="Debian chromium and chromium-driver are not installed",
)

FAULTS = {"FAULT-SLOW", "FAULT-500", "FAULT-404", "FAULT-NOTPDF"}
WIKI_FAULTS = {"withdrawn_talk.pptx", "truncated_talk.pptx"}
TOPIC, TALK = "HiggsToMuMuRun3", "HIG-24-001_preapproval.pptx"
TIMEOUT_S = 2.5  # the slow fault document stalls 8 s


def crawl_settings(data_dir: Path, retries: int = 0) -> Settings:
    return Settings(data_dir=data_dir, crawl_timeout_s=TIMEOUT_S, crawl_retries=retries,
                    crawl_delay_s=0.0, crawl_backoff_s=0.05)


@pytest.fixture(scope="module")
def profile():
    return load_profile("local_portal")


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("crawl") / "data"


@pytest.fixture(scope="module")
def portal_env(portal):
    """Credentials and base URL through the environment variables the profile names."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("MITRA_PORTAL_USER", portal.config.username)
        env.setenv("MITRA_PORTAL_PASSWORD", portal.config.password.get_secret_value())
        env.setenv("MITRA_PORTAL_URL", portal.url)
        yield


@pytest.fixture(scope="module")
def first_crawl(portal, portal_env, profile, data_dir):
    portal.state.expire_after_downloads(1)
    before = portal.state.logins
    report = crawl(profile, crawl_settings(data_dir, retries=1))
    return report, portal.state.logins - before


@pytest.fixture(scope="module")
def rerun(first_crawl, portal, portal_env, profile, data_dir):
    before = portal.state.logins
    report = crawl(profile, crawl_settings(data_dir))
    return report, portal.state.logins - before


def by_doc(report) -> dict[tuple[str, str, str], object]:
    return {(f.analysis_id, f.doc_id, f.version): f for f in report.files}


def revision(topic) -> str:
    """A topic's version as the profile reads it: the number of its TWiki revision (r14: 14)."""
    return topic.revision.removeprefix("r")


def wiki_files(corpus) -> set[tuple[str, str, str]]:
    """The wiki topics and their attachments as crawled versions: the wiki's revisions."""
    return {(t.analysis_id, t.topic, revision(t)) for t in corpus.wiki} | {
        (t.analysis_id, a.name, a.version) for t in corpus.wiki for a in t.attachments}


def logged_in(portal) -> requests.Session:
    http = requests.Session()
    http.get(f"{portal.url}/login", timeout=5)
    http.post(f"{portal.url}/login", timeout=5, data={
        "csrf_token": http.cookies[CSRF_COOKIE], "username": portal.config.username,
        "password": portal.config.password.get_secret_value(),
    })
    return http


# ---------------------------------------------------------------------------- the first crawl


def test_pagination_with_js_rendered_rows_finds_every_analysis(first_crawl, demo_corpus, data_dir):
    report, _ = first_crawl
    assert report.analyses == [a.id for a in demo_corpus.analyses]  # 5 analyses over 3 pages
    assert report.errors == []
    with Manifest(data_dir / "manifest.sqlite") as manifest:
        stored = {a.id: a for a in manifest.analyses()}
    for analysis in demo_corpus.analyses:
        assert stored[analysis.id].title == analysis.title
        assert stored[analysis.id].abstract == analysis.abstract
        assert stored[analysis.id].url.endswith(f"/analysis/{analysis.id}")


def test_every_version_is_downloaded_intact(first_crawl, demo_corpus, data_dir):
    files = by_doc(first_crawl[0])
    for doc in demo_corpus.documents:
        outcome = files[(doc.analysis_id, doc.doc_id, doc.version)]
        assert outcome.status is FileStatus.downloaded
        assert outcome.sha256 == doc.sha256
        assert outcome.path == data_dir / "downloads" / doc.analysis_id / doc.doc_id / f"{doc.version}.pdf"
    v1, v2 = files[("HIG-24-001", "AN-2024-017", "v1")], files[("HIG-24-001", "AN-2024-017", "v2")]
    assert v1.path.read_bytes() != v2.path.read_bytes()
    assert not list((data_dir / "downloads").rglob("*.part.*")) and not list((data_dir / "downloads").rglob("fetched*"))


def test_the_wiki_topic_is_kept_as_fetched_and_its_talk_downloaded(first_crawl, portal, demo_corpus, data_dir):
    (topic,) = demo_corpus.wiki
    files = by_doc(first_crawl[0])
    page = files[("HIG-24-001", TOPIC, revision(topic))]
    assert page.status is FileStatus.downloaded and page.title == topic.title
    assert page.url == f"{portal.url}/twiki/bin/view/ORION/{TOPIC}"
    kept = page.path.read_bytes()
    assert page.path == data_dir / "downloads" / "HIG-24-001" / TOPIC / f"{revision(topic)}.html"
    assert kept == logged_in(portal).get(page.url, timeout=5).content  # chrome and all: the reader strips it
    assert b'id="twiki-left-bar"' in kept and b"Send feedback" in kept
    (talk,) = topic.attachments
    outcome = files[("HIG-24-001", TALK, talk.version)]
    assert outcome.status is FileStatus.downloaded and outcome.sha256 == talk.sha256
    assert outcome.path.suffix == ".pptx" and outcome.title == talk.title
    with Manifest(data_dir / "manifest.sqlite") as manifest:
        assert manifest.get(VersionKey("HIG-24-001", TALK, talk.version)).path == outcome.path


def test_the_crawl_never_leaves_the_portal_nor_edits_nor_logs_out(first_crawl, portal):
    report, logins = first_crawl
    assert portal.state.edits == 0  # the topic's Edit link locks it on a real TWiki
    assert all(f.url.startswith(portal.url) for f in report.files)
    assert not any(part in f.url for f in report.files for part in ("/logout", "/edit/", "/attach/", "example.org"))


def test_faults_are_recorded_per_file_while_the_batch_goes_on(first_crawl, demo_corpus, data_dir):
    report, _ = first_crawl
    errors = {f.doc_id: f.error for f in report.failed}
    assert set(errors) == FAULTS | WIKI_FAULTS
    assert errors["FAULT-SLOW"] == f"timed out after {TIMEOUT_S:g} s (gave up after 2 attempts)"
    assert errors["FAULT-500"] == "HTTP 500 Internal Server Error (gave up after 2 attempts)"
    assert errors["FAULT-404"] == errors["withdrawn_talk.pptx"] == "HTTP 404 Not Found"
    assert errors["FAULT-NOTPDF"] == ("the file is HTML, though named .pdf: an error or login page saved in its place? "
                                      "(the server sent application/pdf starting with b'<!DOCTYPE html><')")
    assert errors["truncated_talk.pptx"].startswith("the ZIP container is damaged")
    assert len(report.downloaded) == len(demo_corpus.documents) + len(wiki_files(demo_corpus))
    with Manifest(data_dir / "manifest.sqlite") as manifest:
        failed = {r.doc_id: r for r in manifest.versions(status=DownloadStatus.failed)}
    assert {d: r.error for d, r in failed.items()} == errors
    assert all(r.path is None for r in failed.values())


def test_session_expiring_mid_crawl_means_one_more_login(first_crawl):
    report, portal_logins = first_crawl
    assert report.logins == portal_logins == 2
    assert not report.session_reused


def test_downloaded_versions_wait_for_the_index_stage(first_crawl, demo_corpus, data_dir):
    with Manifest(data_dir / "manifest.sqlite") as manifest:
        pending = manifest.pending(Stage.index)
        assert {(r.analysis_id, r.doc_id, r.version) for r in pending} == {
            (d.analysis_id, d.doc_id, d.version) for d in demo_corpus.documents
        } | wiki_files(demo_corpus)
        assert all(r.index_status is StageStatus.pending and r.path.is_file() for r in pending)


# ---------------------------------------------------------------------------- reruns


def test_rerun_skips_unchanged_versions_and_reuses_the_saved_session(rerun, first_crawl, demo_corpus, profile, data_dir):
    report, portal_logins = rerun
    assert portal_logins == 0 and report.logins == 0 and report.session_reused
    assert len(report.skipped) == len(demo_corpus.documents) + len(wiki_files(demo_corpus))
    assert {f.doc_id for f in report.failed} == FAULTS | WIKI_FAULTS  # failures are retried on every run
    assert report.downloaded == []
    saved = session_path(crawl_settings(data_dir), profile)
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert load_session(saved)


def test_expired_saved_session_and_changed_file(rerun, portal, portal_env, profile, data_dir):
    """The saved session no longer works: log in again. A damaged file: fetch it again."""
    portal.state.expire_sessions()
    damaged = data_dir / "downloads" / "EXO-24-003" / "PAS-EXO-24-003" / "v1.pdf"
    intact = damaged.read_bytes()
    damaged.write_bytes(b"%PDF-1.4 truncated")
    before = portal.state.logins
    report = crawl(profile, crawl_settings(data_dir))
    assert portal.state.logins - before == 1 and not report.session_reused
    assert [(f.doc_id, f.version) for f in report.downloaded] == [("PAS-EXO-24-003", "v1")]
    assert damaged.read_bytes() == intact


def test_wrong_password_stops_the_crawl_with_a_clear_error(portal, profile, tmp_path):
    before = portal.state.failed_logins
    bad = Credentials(username=portal.config.username, password="not-the-password")
    with pytest.raises(LoginError, match=r"login to local_portal as 'physicist' was rejected: "
                                         r"Invalid username or password\.") as error:
        crawl(profile, crawl_settings(tmp_path / "data"), base_url=portal.url, credentials=bad)
    assert "not-the-password" not in str(error.value)
    assert portal.state.failed_logins == before + 1
    with Manifest(tmp_path / "data" / "manifest.sqlite") as manifest:
        assert manifest.versions() == []


def test_cli_crawl_on_imported_cookies(rerun, portal, demo_corpus, data_dir, tmp_path):
    """Two-factor SSO workflow: log in elsewhere, export cookies.txt, import, crawl."""
    portal.state.expire_sessions()
    browser = logged_in(portal)
    cookies_txt = tmp_path / "cookies.txt"
    lines = ["# Netscape HTTP Cookie File"] + [
        "\t".join([c.domain, "FALSE", c.path, "FALSE", "0", c.name, c.value or ""]) for c in browser.cookies
    ]
    cookies_txt.write_text("\n".join(lines) + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MITRA_PORTAL_")}  # no credentials
    env |= {"MITRA_DATA_DIR": str(data_dir), "MITRA_CRAWL_TIMEOUT_S": str(TIMEOUT_S),
            "MITRA_CRAWL_RETRIES": "0", "MITRA_CRAWL_DELAY_S": "0"}
    mitra = [sys.executable, "-m", "mitra", "ingest"]
    imported = subprocess.run([*mitra, "import-cookies", "--profile", "local_portal", "--base-url", portal.url,
                               str(cookies_txt)], env=env, capture_output=True, text=True, timeout=60)
    assert imported.returncode == 0, imported.stderr
    assert "saved 1 cookie(s) for local_portal" in imported.stdout  # the session; the CSRF cookie is gone
    before = portal.state.logins
    crawled = subprocess.run([*mitra, "crawl", "--profile", "local_portal", "--base-url", portal.url, "--json"],
                             env=env, capture_output=True, text=True, timeout=120)
    assert crawled.returncode == 1, crawled.stderr  # 1: the fault documents failed
    report = json.loads(crawled.stdout)
    assert report["session_reused"] and report["logins"] == 0 and portal.state.logins == before
    statuses = [f["status"] for f in report["files"] if f["doc_id"] not in FAULTS | WIKI_FAULTS]
    assert statuses == ["skipped"] * (len(demo_corpus.documents) + len(wiki_files(demo_corpus)))
    assert "6 failed" in crawled.stderr


# ---------------------------------------------------------------------------- no browser needed


def test_profiles_load_and_a_bad_one_is_named(tmp_path):
    assert {"local_portal", "cds_keycloak"} <= set(bundled_profiles())
    cds = load_profile("cds_keycloak")
    assert (cds.login.user, cds.login.password, cds.login.submit) == ("#username", "#password", "#kc-login")
    with pytest.raises(ProfileError, match="no profile 'nope'"):
        load_profile("nope")
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: x\nbase_url: http://h\n")
    with pytest.raises(ProfileError, match="invalid site profile .*broken.yaml"):
        load_profile(broken)


def test_base_url_override_order(profile, monkeypatch):
    monkeypatch.delenv("MITRA_PORTAL_URL", raising=False)
    assert profile.resolve_base_url() == "http://127.0.0.1:8770"
    monkeypatch.setenv("MITRA_PORTAL_URL", "http://127.0.0.1:9000/")
    assert profile.resolve_base_url() == "http://127.0.0.1:9000"
    assert profile.resolve_base_url("http://other:1") == "http://other:1"


def test_credentials_from_netrc_when_the_environment_has_none(profile, monkeypatch, tmp_path):
    for name in ("MITRA_PORTAL_USER", "MITRA_PORTAL_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login alice password s3cret\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    creds = resolve_credentials(profile, "http://127.0.0.1:8765")
    assert creds.username == "alice" and creds.password.get_secret_value() == "s3cret"
    assert "s3cret" not in repr(creds)
    with pytest.raises(CredentialsError, match=r"set \$MITRA_PORTAL_USER and \$MITRA_PORTAL_PASSWORD"):
        resolve_credentials(profile, "http://elsewhere:8765")


def test_cookie_import_keeps_the_portals_cookies_only(profile, tmp_path):
    settings = Settings(data_dir=tmp_path / "data")
    export = tmp_path / "cookies.json"
    export.write_text(json.dumps([
        {"name": "portal_session", "value": "abc", "domain": "127.0.0.1", "path": "/", "httpOnly": True},
        {"name": "tracker", "value": "x", "domain": ".other.example", "path": "/", "expirationDate": 4102444800},
        {"name": "stale", "value": "y", "domain": "127.0.0.1", "path": "/", "expirationDate": 1000},
    ]))
    assert import_cookies(export, profile, settings, "http://127.0.0.1:8765") == 1
    saved = session_path(settings, profile)
    assert [c["name"] for c in load_session(saved)] == ["portal_session"]
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    with pytest.raises(CookieImportError, match="none of the 3 cookies"):
        import_cookies(export, profile, settings, "http://cds.example.org")
    garbage = tmp_path / "garbage.txt"
    garbage.write_text("not cookies\n")
    with pytest.raises(CookieImportError, match="neither a Netscape cookies.txt nor a JSON export"):
        import_cookies(garbage, profile, settings, "http://127.0.0.1:8765")


def test_manifest_stage_state_follows_the_file_content(tmp_path):
    key = VersionKey("HIG-24-001", "AN-2024-017", "v1")
    pdf = tmp_path / "downloads" / "v1.pdf"
    pdf.parent.mkdir()
    pdf.write_bytes(b"%PDF-1.4 one")
    with Manifest(tmp_path / "manifest.sqlite") as manifest:
        with pytest.raises(KeyError, match="analysis 'HIG-24-001' is not in the manifest"):
            manifest.record_download(key, title="AN", url="http://p/v1.pdf", path=pdf, sha256="aaa", size=12)
        manifest.upsert_analysis(Analysis(id="HIG-24-001", title="H to mu mu"), url="http://p/analysis/HIG-24-001")
        manifest.record_download(key, title="AN", url="http://p/v1.pdf", path=pdf, sha256="aaa", size=12)
        assert manifest.get(key).path == pdf
        manifest.mark_stage(key, Stage.extract)
        manifest.mark_stage(key, Stage.index)
        assert manifest.pending(Stage.index) == []
        manifest.record_download(key, title="AN", url="http://p/v1.pdf", path=pdf, sha256="aaa", size=12)
        assert manifest.pending(Stage.index) == []  # same content: still indexed
        manifest.record_download(key, title="AN", url="http://p/v1.pdf", path=pdf, sha256="bbb", size=12)
        (record,) = manifest.pending(Stage.index)
        assert (record.extract_status, record.index_status) == (StageStatus.pending, StageStatus.pending)
        assert record.path == pdf and record.source == "http://p/v1.pdf"
        manifest.mark_stage(key, Stage.index, error="embedder failed")
        assert manifest.get(key).index_error == "embedder failed"
        manifest.record_failure(key, title="AN", url="http://p/v1.pdf", error="HTTP 500")
        assert manifest.get(key).path == pdf  # the earlier file stays recorded
        with pytest.raises(KeyError, match="no manifest entry"):
            manifest.mark_stage(VersionKey("X", "Y", "v9"), Stage.index)


def test_a_file_without_a_portal_version_is_new_only_when_its_content_changes(profile, tmp_path):
    settings = crawl_settings(tmp_path / "data")
    link = DocLink(doc_id="AnalysisRecipe", version=None, title="Recipe", url="http://p/wiki/AnalysisRecipe",
                    suffix=".html")
    with Manifest.open(settings) as manifest:
        manifest.upsert_analysis(Analysis(id="HIG-24-001", title="H to mu mu"))
        report = CrawlReport(profile="local_portal", base_url="http://p", started_at="2024-06-01T00:00:00Z")
        crawler = _Crawler(profile, settings, "http://p", None, manifest, None, None, report)

        def fetched(content: bytes):
            staged = settings.downloads_dir / "HIG-24-001" / link.doc_id / "fetched.html"
            staged.parent.mkdir(parents=True, exist_ok=True)
            staged.write_bytes(content)
            return crawler.keep("HIG-24-001", link, staged, hashlib.sha256(content).hexdigest(), len(content))

        first, same, changed = fetched(b"<p>one</p>"), fetched(b"<p>one</p>"), fetched(b"<p>two</p>")
        assert [(o.version, o.status) for o in (first, same, changed)] == [
            ("v1", FileStatus.downloaded), ("v1", FileStatus.skipped), ("v2", FileStatus.downloaded)]
        assert first.path.read_bytes() == b"<p>one</p>" and changed.path.read_bytes() == b"<p>two</p>"
        assert manifest.latest("HIG-24-001", link.doc_id).version == "v2"
        changed.path.write_bytes(b"<p>damaged</p>")  # the kept copy of an unchanged version is mended
        mended = fetched(b"<p>two</p>")
        assert (mended.version, mended.status) == ("v2", FileStatus.downloaded)
        assert changed.path.read_bytes() == b"<p>two</p>"
        assert fetched(b"<p>one</p>").version == "v3"  # a page reverted to older text is its newest version
    assert (next_version("v9"), next_version("r14"), next_version("draft")) == ("v10", "r15", "draft2")
    assert doc_id_of("https://p/twiki/pub/ORION/T/My%20talk.pptx") == "My_talk.pptx"
    assert doc_id_of("https://p/pages/viewpage.action?pageId=42") == "viewpage.action_pageId_42"
    assert doc_id_of("https://p/twiki/bin/view/Main/WebHome", qualified=True) == "Main.WebHome"


# ---------------------------------------------------------------------------- crawled and indexed


@pytest.fixture(scope="module")
def wiki_portal(tmp_path_factory):
    """HIG-24-001 alone (two notes, its wiki topic and talk) with the fault documents and
    attachments: a crawl and an index in seconds (no scanned note to OCR)."""
    content = tmp_path_factory.mktemp("content")
    shutil.copy(CONTENT_DIR / "HIG-24-001.yaml", content)
    corpus = build_corpus(tmp_path_factory.mktemp("wiki-corpus"), content_dir=content)
    config = PortalConfig(corpus_dir=corpus.root, username="physicist", password="pw-wiki", faults=True,
                          slow_s=8.0, render_delay_ms=0)
    with serve_portal(config) as running:
        yield running


def hits(cli, question: str) -> list[dict]:
    found = cli("search", "--analysis", "HIG-24-001", question, "--json")
    assert found.exit_code == 0, found.output
    return json.loads(found.stdout)["hits"]


def test_ingest_run_indexes_the_wiki_topic_and_its_talk_and_a_rerun_downloads_nothing(cli, wiki_portal, monkeypatch):
    for name, value in {"MITRA_PORTAL_USER": "physicist", "MITRA_PORTAL_PASSWORD": "pw-wiki",
                        "MITRA_CRAWL_TIMEOUT_S": str(TIMEOUT_S), "MITRA_CRAWL_RETRIES": "0",
                        "MITRA_CRAWL_DELAY_S": "0"}.items():
        monkeypatch.setenv(name, value)
    first = cli("ingest", "run", "--profile", "local_portal", "--base-url", wiki_portal.url, "--json")
    assert first.exit_code == 1, first.output  # 1: the fault documents and attachments failed
    done = json.loads(first.stdout)
    assert {f["doc_id"] for f in done["crawl"]["files"] if f["status"] == "failed"} == FAULTS | WIKI_FAULTS
    assert done["ingest"]["versions"] == 4 and not done["ingest"]["failed"]  # two notes, the topic, the talk

    recipe = hits(cli, "Which software release reproduces the result of the analysis recipe?")[0]
    assert recipe["doc_id"] == TOPIC and "ORION_14_0_7" in recipe["text"]
    assert recipe["label"].endswith("#AnalysisRecipe"), recipe["label"]
    contacts = hits(cli, "Who are the analysis contacts of the topic?")[0]
    assert (contacts["section"], contacts["label"]) == ("Contacts", f"{TOPIC} v14 · Contacts · #Contacts")
    yields = hits(cli, "How many VBF signal events are expected with the first 2024 data?")[0]
    assert yields["doc_id"] == TALK and "37.6" in yields["text"]
    assert yields["page"] == "slide 4", yields["label"]
    chunks = [h["text"] for q in ("Send feedback to TWiki support", "Log out of the ORION web")
              for h in hits(cli, q) if h["doc_id"] == TOPIC]
    assert not any("Send feedback" in t or "Log out" in t for t in chunks)  # the reader kept the topic, not the chrome

    again = cli("ingest", "run", "--profile", "local_portal", "--base-url", wiki_portal.url, "--json")
    assert again.exit_code == 1, again.output
    rerun = json.loads(again.stdout)
    statuses = {(f["doc_id"], f["version"]): f["status"] for f in rerun["crawl"]["files"]}
    assert {key for key, status in statuses.items() if status == "skipped"} == {
        ("AN-2024-017", "v1"), ("AN-2024-017", "v2"), (TOPIC, "14"), (TALK, "1")}
    assert "downloaded" not in statuses.values() and rerun["ingest"]["versions"] == 0


def test_deeper_crawl_reads_each_page_once_and_never_leaves_the_portal_nor_logs_out(wiki_portal, profile, tmp_path):
    """Depth 2 and every link of the topic: its breadcrumb links it back (read once), its menu
    links pages the portal lacks (one failed row each; the webs' WebHome topics told apart),
    off-site pages, a mailto, Edit, Attach and Log out, none of which is opened."""
    pages = profile.analysis.pages.model_copy(update={"depth": 2, "links": LinksSpec(item="a")})
    deep = profile.model_copy(update={"analysis": profile.analysis.model_copy(update={"pages": pages})})
    logins, edits = wiki_portal.state.logins, wiki_portal.state.edits
    report = crawl(deep, crawl_settings(tmp_path / "data"), base_url=wiki_portal.url,
                   credentials=Credentials(username="physicist", password="pw-wiki"))
    assert wiki_portal.state.logins - logins == report.logins == 1  # never logged out
    assert wiki_portal.state.edits == edits
    assert [f.doc_id for f in report.files].count(TOPIC) == 1
    urls = [f.url for f in report.files]
    assert not [u for u in urls if not u.startswith(wiki_portal.url) or any(
        part in u for part in ("/logout", "/edit/", "/attach/"))]
    missing = {f.doc_id: f.error for f in report.failed if "/twiki/bin/view/" in f.url}
    assert set(missing) >= {"WebHome", "Main.WebHome", "Sandbox.WebHome", "WebChanges", "HiggsPhysics"}
    assert set(missing.values()) == {"HTTP 404 Not Found"}
    assert (TALK, FileStatus.downloaded) in {(f.doc_id, f.status) for f in report.files}
