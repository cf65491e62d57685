"""A portal that moves keeps every document's identity, and a knowledge base that a moved
portal filled with duplicates is repaired, nothing lost.

The local portal serves HIG-24-001 (two notes, its wiki topic and the talk attached to
it) on a new port for each crawl, as ``scripts/demo.sh`` does on every run: the second
crawl downloads and indexes nothing, with the same document ids, versions and passages.
A knowledge base holding the duplicates the issue saw (``ORION.HiggsToMuMuRun3`` and
``HiggsToMuMuRun3.HIG-24-001_preapproval.pptx``, and a newer topic revision fetched
under the duplicate's name), with a manifest from before locators, is repaired by the
next `mitra ingest run` and by `mitra ingest repair`: real Chromium, portal, Chroma.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from contextlib import contextmanager
from pathlib import Path

import pytest

from demo.corpus_specs import CONTENT_DIR
from demo.make_corpus import build_corpus
from demo.portal import PortalConfig, serve_portal
from ingest.pipeline import index_manifest
from ingest.sources.crawl import _Crawler
from ingest.sources.crawl_records import CrawlReport, DocLink, FileStatus
from ingest.sources.identity import Identity
from ingest.sources.manifest import Manifest, VersionKey
from ingest.sources.profiles import load_profile
from mitra.core.settings import Settings
from mitra.core.types import Analysis
from mitra.evaluation.feedback import Feedback, FeedbackStore
from mitra.store.knowledge_base import KnowledgeBase

pytestmark = pytest.mark.skipif(
    not (Settings().chromedriver_binary.is_file() and Settings().chromium_binary.is_file()),
    reason="Debian chromium and chromium-driver are not installed",
)

ANALYSIS, TOPIC, TALK = "HIG-24-001", "HiggsToMuMuRun3", "HIG-24-001_preapproval.pptx"
DUPLICATES = {f"ORION.{TOPIC}": TOPIC, f"{TOPIC}.{TALK}": TALK}  # the names the second run gave
NEW_IN_R15 = "The r15 revision adds the combination with the 2024 data, 62.4 inverse femtobarn in all."


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    content = tmp_path_factory.mktemp("content")
    shutil.copy(CONTENT_DIR / "HIG-24-001.yaml", content)
    return build_corpus(tmp_path_factory.mktemp("corpus"), content_dir=content)


@contextmanager
def portal(corpus):
    """The portal on a free port: a new address every time."""
    config = PortalConfig(corpus_dir=corpus.root, username="physicist", password="pw-moves", faults=False,
                          render_delay_ms=0)
    with serve_portal(config) as running:
        yield running


@pytest.fixture
def run(cli, monkeypatch):
    for name, value in {"MITRA_PORTAL_USER": "physicist", "MITRA_PORTAL_PASSWORD": "pw-moves",
                        "MITRA_CRAWL_TIMEOUT_S": "10", "MITRA_CRAWL_RETRIES": "0", "MITRA_CRAWL_DELAY_S": "0"}.items():
        monkeypatch.setenv(name, value)

    def ingest_run(url: str) -> dict:
        result = cli("ingest", "run", "--profile", "local_portal", "--base-url", url, "--json")
        assert result.exit_code == 0, result.output
        assert "Traceback" not in result.output
        return json.loads(result.stdout)

    return ingest_run


def held(data_dir: Path, embedder) -> tuple[dict[tuple[str, str], str], dict[tuple[str, str], list[str]]]:
    """What the knowledge base holds of the analysis: each document version's file (sha256),
    and the text of its passages."""
    kb = KnowledgeBase(Settings(data_dir=data_dir, reranker="none"), embedder)
    versions = {(r.document.doc_id, r.document.version): r.document.sha256 for r in kb.documents(ANALYSIS)}
    passages: dict[tuple[str, str], list[str]] = {}
    for chunk in kb.chunks(ANALYSIS):
        passages.setdefault((chunk.doc_id, chunk.version), []).append(chunk.text)
    return versions, passages


def test_a_recrawl_of_the_portal_at_another_port_downloads_and_adds_nothing(corpus, run, tmp_path, embedder):
    with portal(corpus) as first:
        done = run(first.url)
    assert done["ingest"]["versions"] == 4 and done["repaired"] == []
    before = held(tmp_path / "kb", embedder)
    with portal(corpus) as second:
        assert second.url != first.url
        again = run(second.url)
    statuses = {(f["doc_id"], f["version"]): f["status"] for f in again["crawl"]["files"]}
    assert statuses == {("AN-2024-017", "v1"): "skipped", ("AN-2024-017", "v2"): "skipped", (TOPIC, "14"): "skipped",
                        (TALK, "1"): "skipped"}
    assert again["ingest"]["versions"] == 0 and again["repaired"] == []
    assert held(tmp_path / "kb", embedder) == before
    with Manifest(tmp_path / "kb" / "manifest.sqlite") as manifest:  # the manifest names where the portal is now
        assert manifest.get(VersionKey(ANALYSIS, TOPIC, "14")).source.startswith(second.url)


def _duplicate(manifest: Manifest, data_dir: Path, name: str, version: str, content: bytes, url: str) -> None:
    """A row as the crawl before locators wrote it for a document it named anew."""
    path = data_dir / "downloads" / ANALYSIS / name / f"{version}{Path(url).suffix or '.html'}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    manifest.record_download(VersionKey(ANALYSIS, name, version), title=name, url=url, path=path,
                             sha256=hashlib.sha256(content).hexdigest(), size=len(content))


def test_a_knowledge_base_holding_the_duplicates_is_repaired_nothing_lost(corpus, run, cli, tmp_path, embedder):
    data_dir = tmp_path / "kb"
    with portal(corpus) as first:
        run(first.url)
    versions, passages = held(data_dir, embedder)

    # The duplicates of the issue: the topic and the talk again under new names from the
    # portal at another port, and a newer revision of the topic fetched under its duplicate's.
    moved = "http://127.0.0.1:1/twiki"
    with Manifest(data_dir / "manifest.sqlite") as manifest:
        topic, talk = (manifest.get(VersionKey(ANALYSIS, doc, v)) for doc, v in ((TOPIC, "14"), (TALK, "1")))
        r15 = topic.path.read_bytes().replace(b"</h1>", f"</h1><h2>Combination</h2><p>{NEW_IN_R15}</p>".encode(), 1)
        _duplicate(manifest, data_dir, f"ORION.{TOPIC}", "14", topic.path.read_bytes(), f"{moved}/bin/view/ORION/{TOPIC}")
        _duplicate(manifest, data_dir, f"ORION.{TOPIC}", "15", r15, f"{moved}/bin/view/ORION/{TOPIC}")
        _duplicate(manifest, data_dir, f"{TOPIC}.{TALK}", "1", talk.path.read_bytes(),
                   f"{moved}/pub/ORION/{TOPIC}/{TALK}")
        settings = Settings(data_dir=data_dir, reranker="none")
        summary = index_manifest(KnowledgeBase(settings, embedder), manifest, settings)
        assert summary.versions == 3 and not summary.failed
    with sqlite3.connect(data_dir / "manifest.sqlite") as db:  # a manifest from before locators
        db.execute("ALTER TABLE versions DROP COLUMN locator")
    duplicated, _ = held(data_dir, embedder)
    assert set(duplicated) == set(versions) | {(f"ORION.{TOPIC}", "14"), (f"ORION.{TOPIC}", "15"),
                                                 (f"{TOPIC}.{TALK}", "1")}
    kb = KnowledgeBase(Settings(data_dir=data_dir, reranker="none"), embedder)
    cited = [c for c in kb.chunks(ANALYSIS) if c.doc_id == f"{TOPIC}.{TALK}"][:1] + \
        [c for c in kb.chunks(ANALYSIS) if c.doc_id == f"ORION.{TOPIC}" and NEW_IN_R15 in c.text][:1]
    FeedbackStore.open(kb.settings).add(Feedback(analysis_id=ANALYSIS, question="How many VBF events?", answer="37.6",
                                                 cited_chunk_ids=[c.id for c in cited], rating=1))

    with portal(corpus) as second:
        repaired = run(second.url)
    folds = {f["duplicate"]: (f["into"], f["versions"]) for f in repaired["repaired"]}
    assert folds == {f"ORION.{TOPIC}": (TOPIC, {"14": None, "15": "15"}), f"{TOPIC}.{TALK}": (TALK, {"1": None})}
    assert not [f for f in repaired["crawl"]["files"] if f["status"] == "downloaded"]
    assert repaired["ingest"]["versions"] == 0

    now, texts = held(data_dir, embedder)
    assert set(now) == set(versions) | {(TOPIC, "15")}  # no duplicate left; the newer revision kept, as the next
    assert {k: v for k, v in now.items() if k in versions} == versions
    assert all(texts[key] == passages[key] for key in passages)  # every passage as it was
    assert any(NEW_IN_R15 in text for text in texts[(TOPIC, "15")])
    kb = KnowledgeBase(Settings(data_dir=data_dir, reranker="none"), embedder)
    current = {r.document.version for r in kb.documents(ANALYSIS) if r.document.doc_id == TOPIC and not r.superseded}
    assert current == {"15"}
    assert not (data_dir / "downloads" / ANALYSIS / f"ORION.{TOPIC}").exists()
    (rating,) = FeedbackStore.open(kb.settings).all()  # it cites the same passages, under the kept document
    assert [kb.get_chunks(ANALYSIS, [i])[i].text for i in rating.cited_chunk_ids] == [c.text for c in cited]
    assert [kb.get_chunks(ANALYSIS, [i])[i].doc_id for i in rating.cited_chunk_ids] == [TALK, TOPIC]
    with Manifest(data_dir / "manifest.sqlite") as manifest:
        assert {r.doc_id for r in manifest.versions()} == {"AN-2024-017", TOPIC, TALK}
        assert manifest.get(VersionKey(ANALYSIS, TOPIC, "15")).path.read_bytes() == r15

    nothing = cli("ingest", "repair", "--json")
    assert nothing.exit_code == 0, nothing.output
    assert json.loads(nothing.stdout)["repaired"] == []


def test_a_document_keeps_its_id_and_versions_wherever_the_portal_is_served(tmp_path):
    """Without a browser: the same topic fetched from two addresses of the portal (another
    port, host and scheme) is one document, unchanged content skipped, a change the next version."""
    settings = Settings(data_dir=tmp_path / "data", crawl_delay_s=0)
    profile = load_profile("local_portal")
    with Manifest.open(settings) as manifest:
        manifest.upsert_analysis(Analysis(id=ANALYSIS, title="H to mu mu"))

        def fetched(base: str, content: bytes, query: str = ""):
            report = CrawlReport(profile="local_portal", base_url=base, started_at="2024-06-01T00:00:00Z")
            crawler = _Crawler(profile, settings, base, None, manifest, None, None, report)
            url = f"{base}/twiki/bin/view/ORION/{TOPIC}{query}"
            link = DocLink(doc_id=crawler.identity.doc_id(ANALYSIS, url), version=None, title=TOPIC, url=url,
                            suffix=".html")
            staged = settings.downloads_dir / ANALYSIS / link.doc_id / "fetched.html"
            staged.parent.mkdir(parents=True, exist_ok=True)
            staged.write_bytes(content)
            return crawler.keep(ANALYSIS, link, staged, hashlib.sha256(content).hexdigest(), len(content))

        first = fetched("http://127.0.0.1:8770", b"<p>one</p>")
        same = fetched("http://127.0.0.1:41234", b"<p>one</p>", "?jsessionid=abc&utm_source=mail")
        moved = fetched("https://portal.example.org", b"<p>one</p>")
        changed = fetched("https://portal.example.org", b"<p>two</p>")
        assert [(o.doc_id, o.version, o.status) for o in (first, same, moved, changed)] == [
            (TOPIC, "v1", FileStatus.downloaded), (TOPIC, "v1", FileStatus.skipped), (TOPIC, "v1", FileStatus.skipped),
            (TOPIC, "v2", FileStatus.downloaded)]
        # A portal under a path keeps the same locators; another topic of the name is qualified.
        under = Identity("https://cern.example/twiki", settings.crawl_volatile_params, manifest)
        assert under.locator(f"https://cern.example/twiki/bin/view/ORION/{TOPIC}") == f"/bin/view/ORION/{TOPIC}"
        assert under.locator("https://cern.example/pages/viewpage.action?pageId=42&_=17") == \
            "!/pages/viewpage.action?pageId=42"
        assert under.doc_id(ANALYSIS, f"https://cern.example/twiki/bin/view/Main/{TOPIC}") == f"Main.{TOPIC}"


def test_only_the_names_a_moved_portal_got_are_folded(tmp_path):
    """Two documents the portal itself lists at one address are left apart; the folder-qualified
    name a re-crawl gave a known page is folded into it."""
    from ingest.repair import plan

    settings = Settings(data_dir=tmp_path / "data")
    with Manifest.open(settings) as manifest:
        manifest.upsert_analysis(Analysis(id=ANALYSIS, title="H to mu mu"))
        for name, url, content in (("AN-1", "http://p:1/files/latest.pdf", b"%PDF-1 one"),
                                   ("AN-2", "http://p:2/files/latest.pdf", b"%PDF-1 two"),
                                   (TOPIC, f"http://p:1/twiki/bin/view/ORION/{TOPIC}", b"<p>one</p>"),
                                   (f"ORION.{TOPIC}", f"http://p:2/twiki/bin/view/ORION/{TOPIC}", b"<p>one</p>")):
            _duplicate(manifest, tmp_path / "data", name, "v1", content, url)
        manifest.fill_locators(Identity("http://p:2", settings.crawl_volatile_params, manifest).locator)
        folds = plan(manifest, settings.downloads_dir)
    assert [(f.duplicate, f.into, f.versions, f.same) for f in folds] == [
        (f"ORION.{TOPIC}", TOPIC, {"v1": None}, {"v1": "v1"})]
