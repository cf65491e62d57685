"""Shared fixtures. Sections: core (stores, embedder) first; stage fixtures below."""

from __future__ import annotations

from pathlib import Path

import pytest

from mitra.core.settings import Settings
from tests.fixtures.samples import ANALYSES, write_jsonl
from tests.fixtures.postgres import database_url, postgres_server, postgres_url  # noqa: F401 (fixtures)

REPO = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- core
@pytest.fixture(scope="session")
def embedder():
    """The real packaged all-MiniLM-L6-v2, loaded once per test session."""
    from mitra.models.embedders import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder("all-MiniLM-L6-v2")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "kb", reranker="none", chunk_min_chars=40, chunk_max_chars=600)


@pytest.fixture(scope="session")
def shared_root() -> Path:
    from benchmarks.corpora import shared_dir

    root = shared_dir()
    if root is None:
        pytest.skip("../shared/data is absent (set MITRA_SHARED_DIR): real-data test skipped")
    return root


@pytest.fixture(scope="session")
def corpus_jsonl(tmp_path_factory) -> Path:
    return write_jsonl(tmp_path_factory.mktemp("corpus") / "analyses.jsonl", ANALYSES)


@pytest.fixture
def pipeline(settings, embedder, corpus_jsonl):
    """A real pipeline (real Chroma on disk, real embedder) over the three analyses."""
    from ingest.sources.jsonl import index_jsonl
    from mitra.retrieval.pipeline import build_pipeline

    built = build_pipeline(settings, embedder=embedder)
    index_jsonl(built.kb, corpus_jsonl)
    return built


@pytest.fixture(scope="session")
def demo_kb(tmp_path_factory, embedder) -> Path:
    """The five demo analyses indexed from their Markdown text (seconds, no PDF rendering).
    Shared by the session: tests that write copy it first."""
    from demo.records import demo_records
    from ingest.sources.jsonl import index_records
    from mitra.retrieval.pipeline import build_pipeline

    data_dir = tmp_path_factory.mktemp("demo-kb") / "kb"
    pipeline = build_pipeline(Settings(data_dir=data_dir, reranker="none"), embedder=embedder, with_reranker=False)
    index_records(pipeline.kb, demo_records())
    return data_dir


@pytest.fixture(scope="session")
def demo_pipeline(demo_kb, embedder):
    """A read-only pipeline over ``demo_kb``."""
    from mitra.retrieval.pipeline import build_pipeline

    return build_pipeline(Settings(data_dir=demo_kb, reranker="none"), embedder=embedder, with_reranker=False)


@pytest.fixture
def cli_in(monkeypatch):
    """``cli_in(*args)`` runs ``mitra`` in process on the data dir ``MITRA_DATA_DIR`` names,
    without the cross-encoder; settings are read afresh for every call."""
    from typer.testing import CliRunner

    from mitra.cli import main as cli_module
    from mitra.core.settings import get_settings

    monkeypatch.setenv("MITRA_RERANKER", "none")
    runner = CliRunner()

    def run(*args, input: str | None = None):
        get_settings.cache_clear()
        return runner.invoke(cli_module.register_commands(), list(args), input=input)

    yield run
    get_settings.cache_clear()


@pytest.fixture
def cli(tmp_path, monkeypatch, cli_in):
    """``cli(*args)``: ``cli_in`` on a fresh data dir."""
    monkeypatch.setenv("MITRA_DATA_DIR", str(tmp_path / "kb"))
    return cli_in


# ---------------------------------------------------------------- portal: demo corpus + local document portal
@pytest.fixture(scope="session")
def demo_corpus(tmp_path_factory):
    """The ORION demo corpus rendered once per session (a few seconds: one note is scanned)."""
    from demo.make_corpus import build_corpus

    return build_corpus(tmp_path_factory.mktemp("demo-corpus"))


@pytest.fixture(scope="module")
def portal(demo_corpus):
    """The local portal serving the demo corpus with its fault documents, on a free port.
    One per test module, so its counters (logins, downloads) start at zero in each."""
    from demo.portal import PortalConfig, serve_portal

    config = PortalConfig(
        corpus_dir=demo_corpus.root, username="physicist", password="test-password-4711",
        faults=True, slow_s=8.0, render_delay_ms=100,
    )
    with serve_portal(config) as running:
        yield running


# ---------------------------------------------------------------- chat: session, app and browser
CHAT_LLM = {"llm_backend": "embedded", "llm_max_tokens": 24, "llm_context_tokens": 2048}


def closed_port() -> int:
    """A port nothing listens on (bound, then released): an LLM server that is down."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def answerer(pipeline):
    """The real answerer on the packaged SmolLM2 in the embedded llama.cpp server (started
    once per process), with few tokens: the tests check the flow, not the prose."""
    from mitra.answer.answerer import build_answerer

    return build_answerer(pipeline, pipeline.settings.model_copy(update=CHAT_LLM))


@pytest.fixture
def unreachable_answerer(pipeline):
    """The real answerer pointed at an OpenAI-compatible server that is not running."""
    from mitra.answer.answerer import build_answerer

    down = {"llm_backend": "openai", "openai_base_url": f"http://127.0.0.1:{closed_port()}/v1"}
    return build_answerer(pipeline, pipeline.settings.model_copy(update=down))


@pytest.fixture(scope="session")
def app_data_dir(tmp_path_factory, embedder, corpus_jsonl) -> Path:
    """The three sample analyses indexed once, for the app, which reads its settings from env."""
    from ingest.sources.jsonl import index_jsonl
    from mitra.retrieval.pipeline import build_pipeline

    data_dir = tmp_path_factory.mktemp("app") / "kb"
    built = build_pipeline(Settings(data_dir=data_dir, reranker="none"), embedder=embedder, with_reranker=False)
    index_jsonl(built.kb, corpus_jsonl)
    return data_dir


def app_environment(data_dir: Path, auth: str = "none", **llm) -> dict[str, str]:
    """MITRA_* variables that point the app at ``data_dir`` and an LLM (default: CHAT_LLM),
    open (no sign-in) unless ``auth`` says otherwise."""
    values = {"data_dir": data_dir, "reranker": "none", "auth": auth, **(llm or CHAT_LLM)}
    return {f"MITRA_{k.upper()}": str(v) for k, v in values.items()}


@pytest.fixture(scope="module")
def app_url(app_data_dir, tmp_path_factory):
    """``streamlit run app.py`` on the sample analyses, open (no sign-in), as a process."""
    from tests.fixtures.browser import serve_app

    with serve_app(app_environment(app_data_dir), tmp_path_factory.mktemp("streamlit")) as url:
        yield url


_APP_ENV: dict[str, str] = {}  # what the app's process-wide caches were loaded with


@pytest.fixture
def app_env(monkeypatch, app_data_dir):
    """Env for in-process AppTests: ``use(data_dir=..., **llm)`` changes it. The app's cached
    settings and models are reset only when the env changes, so most tests reuse them."""
    import streamlit as st

    from mitra.core.settings import get_settings

    def use(data_dir: Path = app_data_dir, **llm) -> None:
        env = app_environment(data_dir, **llm)
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        for key in set(_APP_ENV) - set(env):
            monkeypatch.delenv(key, raising=False)
        if env != _APP_ENV:
            _APP_ENV.clear()
            _APP_ENV.update(env)
            get_settings.cache_clear()
            st.cache_resource.clear()

    use()
    yield use
    get_settings.cache_clear()  # other tests must not see the app's env; ui.settings() keeps its copy


# ---------------------------------------------------------------- answerer: LLM backends
OLLAMA_MODEL = "mistral:7b-instruct-q4_K_M"


@pytest.fixture
def ollama_stub():
    """A stand-in Ollama server speaking the real /api/tags and /api/chat protocol, with
    the paper's model pulled; tests set ``reply``, ``pulled`` or ``delay_s`` as needed."""
    from tests.fixtures.ollama_stub import OllamaStub, running_stub

    with running_stub(OllamaStub(pulled=[OLLAMA_MODEL])) as stub:
        yield stub


@pytest.fixture
def ollama_settings(tmp_path, ollama_stub) -> Settings:
    return Settings(data_dir=tmp_path / "kb", llm_backend="ollama", ollama_host=ollama_stub.url, ollama_model=OLLAMA_MODEL)


# ---------------------------------------------------------------- extract / layout / chunk: small PDFs with known content
NOTE_TITLE = "Muon momentum calibration with dimuon resonances"
NOTE_HEADER = "ORION DRAFT - TEST-01 calibration note"
NOTE_ABSTRACT = [
    "We calibrate the muon momentum scale with dimuon decays of the Z boson and",
    "of the J/psi meson recorded in 2023. The scale is known to 0.05 percent.",
]
NOTE_PAGES = [
    # (kind, text) in page order; "line" rows are wrapped body lines of one paragraph,
    # "break" ends a paragraph.
    [
        ("heading", "1 Introduction"),
        ("line", "The momentum scale of muons is the leading experimental uncertainty"),
        ("line", "in precision measurements such as the mass of the W boson. This note"),
        ("line", "documents the calibration procedure and its validation in data."),
        ("break", ""),
        ("line", "Residual biases come from the magnetic field map and from the align-"),
        ("line", "ment of the tracker. The calibration is derived from"),
    ],
    [
        ("line", "events recorded in 2023 with the dimuon trigger and validated with"),
        ("line", "an independent sample of cosmic ray muons."),
        ("break", ""),
        ("heading", "2 Event selection"),
        ("line", "Events with two opposite-sign muons with transverse momentum above"),
        ("line", "twenty GeV are selected within the acceptance of the muon system."),
        ("break", ""),
        ("heading2", "2.1 Muon identification"),
        ("line", "Muons must pass the tight identification working point and be iso-"),
        ("line", "lated from hadronic activity in a cone around their direction."),
        ("figure", "Figure 1: Dimuon invariant mass near the Z boson peak in data."),
    ],
    [
        ("table", "Table 1: Momentum scale corrections per detector region."),
        ("heading", "3 Results"),
        ("line", "The corrected scale agrees with the reference within the statistical"),
        ("line", "precision of the validation sample in every detector region."),
        ("break", ""),
        ("heading", "References"),
        ("line", "[1] ORION Collaboration, Muon reconstruction performance, JINST 19 (2024)."),
    ],
]
NOTE_TABLE = [("Region", "Scale", "Resolution"), ("Barrel", "1.0002", "1.1%"), ("Overlap", "0.9994", "1.6%"),
              ("Endcap", "0.9989", "2.3%")]


def _draw_note(path: Path) -> Path:
    """A three-page single-column note with every kind of furniture extraction must handle:
    running header, "Page N of M", margin line numbers, title page with authors and abstract,
    numbered headings, a hyphenated line break, a paragraph crossing a page break, a drawn
    plot with tick labels and a caption, a table with its caption, and references."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen.canvas import Canvas

    canvas = Canvas(str(path), pagesize=A4, invariant=1)
    width, height = A4
    line_no = 0

    def body_line(text: str, y: float) -> None:
        nonlocal line_no
        line_no += 1
        canvas.setFont("Helvetica", 7)
        canvas.drawRightString(66, y, str(line_no))
        canvas.setFont("Helvetica", 10)
        canvas.drawString(80, y, text)

    for number, items in enumerate(NOTE_PAGES, 1):
        canvas.setFont("Helvetica", 8)
        canvas.drawString(80, height - 40, NOTE_HEADER)
        canvas.drawCentredString(width / 2, 30, f"Page {number} of {len(NOTE_PAGES)}")
        y = height - 90
        if number == 1:
            canvas.setFont("Helvetica-Bold", 17)
            canvas.drawCentredString(width / 2, y, NOTE_TITLE)
            canvas.setFont("Helvetica", 10)
            canvas.drawCentredString(width / 2, y - 24, "A. Okafor, L. Brandt, M. Ishikawa, R. Castellanos")
            canvas.setFont("Helvetica-Bold", 11)
            canvas.drawString(80, y - 70, "Abstract")
            y -= 86
            for line in NOTE_ABSTRACT:
                body_line(line, y)
                y -= 12.5
            y -= 20
        for kind, text in items:
            if kind in ("heading", "heading2"):
                y -= 10
                canvas.setFont("Helvetica-Bold", 13 if kind == "heading" else 11)
                canvas.drawString(80, y, text)
                y -= 20
            elif kind == "line":
                body_line(text, y)
                y -= 12.5
            elif kind == "break":
                y -= 8
            elif kind == "figure":
                y -= 190
                canvas.rect(130, y + 20, 300, 150)
                canvas.bezier(130, y + 30, 250, y + 40, 270, y + 160, 430, y + 30)
                canvas.setFont("Helvetica", 7)
                for i in range(6):
                    x = 130 + 60 * i
                    canvas.line(x, y + 20, x, y + 25)
                    canvas.drawCentredString(x, y + 10, str(80 + 4 * i))
                canvas.drawString(360, y, "m(mumu) [GeV]")
                y -= 24
                canvas.setFont("Helvetica", 9)
                canvas.drawString(80, y, text)
                y -= 20
            elif kind == "table":
                canvas.setFont("Helvetica", 9)
                canvas.drawString(80, y, text)
                y -= 22
                for row in NOTE_TABLE:
                    for x, cell in zip((100, 230, 340), row):
                        canvas.drawString(x, y, cell)
                    y -= 13
                y -= 12
        canvas.showPage()
    canvas.save()
    return path


def _draw_two_columns(path: Path) -> Path:
    """One page: a full-width title, then two columns (the left one opening with a
    heading) whose reading order is known."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen.canvas import Canvas

    canvas = Canvas(str(path), pagesize=A4, invariant=1)
    canvas.setFont("Helvetica-Bold", 16)
    canvas.drawCentredString(A4[0] / 2, 780, "Two column layout test")
    canvas.setFont("Helvetica-Bold", 12)
    canvas.drawString(60, 745, "1 Introduction")
    canvas.setFont("Helvetica", 10)
    for column, x in (("Left", 60), ("Right", 315)):
        y = 725
        for i in range(1, 31):
            canvas.drawString(x, y, f"{column} column sentence number {i} goes here{'.' if i % 10 == 0 else ''}")
            y -= 12.5
    canvas.save()
    return path


SCAN_LINES = [
    "Calibration of the electromagnetic calorimeter",
    "The energy scale of electrons is derived from",
    "dielectron decays of the Z boson recorded in",
    "the first months of data taking at the new",
    "centre of mass energy of the accelerator.",
]


def _draw_scan(path: Path, lines: list[str]) -> Path:
    """An image-only page (no text layer): the lines rendered to pixels, as a scanner would."""
    from PIL import Image, ImageDraw, ImageFont
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen.canvas import Canvas

    dpi = 200
    image = Image.new("L", (int(A4[0] / 72 * dpi), int(A4[1] / 72 * dpi)), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf", 34)
    for i, line in enumerate(lines):
        draw.text((220, 300 + 46 * i), line, font=font, fill=0)
    canvas = Canvas(str(path), pagesize=A4, invariant=1)
    canvas.drawImage(ImageReader(image), 0, 0, width=A4[0], height=A4[1])
    canvas.save()
    return path


@pytest.fixture(scope="session")
def note_pdf(tmp_path_factory) -> Path:
    return _draw_note(tmp_path_factory.mktemp("pdf") / "note.pdf")


@pytest.fixture(scope="session")
def two_column_pdf(tmp_path_factory) -> Path:
    return _draw_two_columns(tmp_path_factory.mktemp("pdf") / "two_columns.pdf")


@pytest.fixture(scope="session")
def scanned_pdf(tmp_path_factory) -> Path:
    return _draw_scan(tmp_path_factory.mktemp("pdf") / "scanned.pdf", SCAN_LINES)


@pytest.fixture(scope="session")
def bad_pdfs(tmp_path_factory, note_pdf) -> dict[str, Path]:
    """One file per kind of bad input, named by the kind."""
    import pypdfium2
    from reportlab.pdfgen.canvas import Canvas

    root = tmp_path_factory.mktemp("bad")
    encrypted = Canvas(str(root / "encrypted.pdf"), encrypt="secret")
    encrypted.drawString(100, 700, "Confidential analysis note")
    encrypted.save()
    (root / "truncated.pdf").write_bytes(note_pdf.read_bytes()[:3000])
    pypdfium2.PdfDocument.new().save(root / "zero_pages.pdf")
    (root / "html.pdf").write_bytes(b"<!DOCTYPE html><html><body>Session expired, please log in</body></html>")
    (root / "empty.pdf").write_bytes(b"")
    _draw_scan(root / "blank_scan.pdf", [])
    return {p.stem: p for p in root.iterdir()}


@pytest.fixture(scope="session")
def hep_pdfs(shared_root) -> Path:
    """The 16 real ATLAS/CMS papers of ../shared/data/hep_pdfs (slow tests only)."""
    return shared_root / "data" / "hep_pdfs"


@pytest.fixture(scope="session")
def chromium():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    from tests.fixtures.browser import CHROME_FLAGS

    if not Path("/usr/bin/chromedriver").exists():
        pytest.skip("Debian chromium-driver is not installed (/usr/bin/chromedriver)")
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in CHROME_FLAGS:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    yield driver
    driver.quit()


@pytest.fixture
def browser(chromium):
    """The session's Chromium, left with one blank tab after each test: a tab left on an
    app whose server has stopped keeps a renderer busy reconnecting for the rest of the run."""
    yield chromium
    first, *others = chromium.window_handles
    for handle in others:
        chromium.switch_to.window(handle)
        chromium.close()
    chromium.switch_to.window(first)
    chromium.delete_all_cookies()  # a session cookie of 127.0.0.1 would sign the next test's app in
    chromium.get("about:blank")


# Last: it imports REPO and closed_port from this module.
from tests.fixtures.chroma import chroma_server  # noqa: E402, F401 (fixture)
