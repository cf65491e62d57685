"""What the Streamlit app and its pages share: process-wide resources and source cards.

Models and stores are loaded once per process (``st.cache_resource``); everything
that belongs to one user lives in ``st.session_state`` (see app.py).
"""

from __future__ import annotations

import logging
import mimetypes
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator
from urllib.parse import unquote, urlparse

import streamlit as st

from mitra.chat.cited_page import HIGHLIGHT
from mitra.store.catalog import DocumentRecord
from mitra.core.errors import MitraError, unavailable_service
from mitra.ui.reachable import reachable
from mitra.ui.render import inert_markdown, passage_markdown
from mitra.chat.labels import source_label
from mitra.core.settings import Settings, get_settings
from mitra.core.types import Chunk, ChunkKind, Document, Hit, version_label

if TYPE_CHECKING:
    from mitra.access.policy import Principal

log = logging.getLogger("mitra.ui")

ASSISTANT = ":material/science:"
CSS = """
<style>
.block-container {padding-top: 3.2rem; max-width: 64rem;}
.mitra-title {font-size: 2.2rem; font-weight: 750; letter-spacing: .04em; margin: 0;
              background: linear-gradient(90deg, #4f46e5, #0ea5e9); -webkit-background-clip: text; color: transparent;}
.mitra-sub {color: #6b7280; margin-top: .1rem;}
.st-key-lock-banner {border-left: 4px solid #4f46e5; background: rgba(79,70,229,.07);
                     padding: .55rem .9rem; border-radius: .5rem; gap: .1rem;}
[class*="st-key-passage-"] {background: rgba(%d, %d, %d, %.2f); padding: .4rem .7rem .1rem; border-radius: .3rem;}
</style>
""" % (*HIGHLIGHT[:3], HIGHLIGHT[3] / 255)  # the cited passage among its slide's or section's text, as on a drawn page


@st.cache_resource(show_spinner="Loading settings…")
def settings() -> Settings:
    return get_settings()


@st.cache_resource
def preloaded():
    """The process's stores and models, loading in the background from its first page (``mitra.ui.preload``)."""
    from mitra.ui.preload import Preload

    return Preload(settings())


@st.cache_resource
def audit_log():
    from mitra.audit import open_audit

    return open_audit(settings())


def audit(event: str, user: str, **fields) -> None:
    audit_log().write(event, user, **fields)


def member() -> "Principal":
    """Every page's first call: who is signed in (or the sign-in, and the page stops),
    and this session's view of the knowledge base, scoped to what they may read."""
    from mitra.ui.auth import sidebar_account, signed_in

    preloaded().start()  # on the sign-in page already: the member types while the models load
    principal = signed_in(settings(), audit)
    sidebar_account(principal, settings(), audit)
    if st.session_state.get("reader_for") != principal:
        try:
            st.session_state.reader = preloaded().reader(principal)  # the stores now, the models when asked
        except Exception as error:  # not cached: the next rerun tries again, so the page recovers
            if not show_unavailable(error):
                raise
            st.stop()
        st.session_state.reader_for = principal
    return principal


def reader():
    """This session's pipeline, scoped by ``member()`` (which must have run first)."""
    return st.session_state.reader


def kb():
    return reader().kb


def show_unavailable(error: Exception) -> bool:
    """Whether ``error`` is a server that does not answer, said on the page in one line."""
    down = unavailable_service(error)
    if down is not None:
        st.error(str(down), icon=":material/cloud_off:")
    return down is not None


@contextmanager
def user_errors() -> Iterator[None]:
    """A MitraError is shown as its message; anything else as one line, never a traceback."""
    try:
        yield
    except MitraError as error:
        st.error(str(error), icon=":material/error:")
    except Exception as error:  # the UI must survive any bug; the log keeps the traceback
        if show_unavailable(error):
            return
        log.exception("unexpected error in the UI")
        st.error(f"Something went wrong ({type(error).__name__}: {error}). The details are in the server log.", icon=":material/bug_report:")


PDF_FORMATS = ("pdf", "pdf-slides")


def page_link(document: Document, page: int | None, anchor: str = "") -> str | None:
    """The source's address at the page or at the section's anchor, when it is on a web
    server (the portal a crawl read it from): a secondary link, since that server may be
    gone (browsers also block file:// links, so a local file gets none)."""
    source = document.source
    if not source or urlparse(source).scheme not in ("http", "https"):
        return None
    if anchor:
        return f"{source}#{anchor}"
    return f"{source}#page={page}" if page else source


def original_file(document: Document) -> Path | None:
    """Where the original file is on this machine (whether or not it is still there): the
    crawler's kept copy of a downloaded version, else the indexed file itself; None for a
    document that never had one here (pre-extracted JSONL, a web address)."""
    # A kept copy that went leaves the indexed file, where that was on this machine.
    if document.kept and (Path(document.kept).is_file() or not _local(document.source)):
        return Path(document.kept)
    return _local(document.source)


def _local(source: str) -> Path | None:
    scheme = urlparse(source).scheme
    if scheme == "file":
        return Path(unquote(urlparse(source).path))
    return Path(source) if scheme == "" and Path(source).is_absolute() else None


def local_pdf(document: Document) -> Path | None:
    """The PDF on this machine the app draws cited pages from: the original when it is one."""
    path = original_file(document)
    if path is None or not (document.format in PDF_FORMATS or path.suffix.lower() == ".pdf"):
        return None
    return path


def original_name(document: Document, path: Path) -> str:
    """The original's file name, for its download: the last part of its source (a portal's
    page may lack a suffix; the kept copy's is added), else the kept copy's name."""
    name = Path(unquote(urlparse(document.source).path)).name
    if not name:
        return path.name
    return name if Path(name).suffix or not path.suffix else name + path.suffix


def offer_original(document: Document, key: str) -> None:
    """The original file to download, or one line saying it is not here. ``document`` comes
    from the member's scoped view of the analysis (``kb().documents``), so only a member who
    may read the analysis gets here; the bytes are read when the button is clicked."""
    path = original_file(document)
    if path is None or not path.is_file():
        st.caption(":material/cloud_off: The original file is not on this machine"
                   + (f" any more ({inert_markdown(path.name)})." if path else "."))
        return
    name = original_name(document, path)
    is_pdf = local_pdf(document) is not None
    st.download_button(f"Download the {'PDF' if is_pdf else 'original'} ({inert_markdown(name)})", data=path.read_bytes,
                       file_name=name, mime=mimetypes.guess_type(name)[0] or "application/octet-stream",
                       key=f"original-{key}", icon=":material/download:", on_click="ignore")


@st.cache_data(max_entries=64, show_spinner="Drawing the cited page…")
def cited_page(pdf: str, page: int, passage: str, unit: str):
    from mitra.chat.cited_page import render_cited_page

    return render_cited_page(Path(pdf), page, passage, unit=unit)


def show_cited_page(pdf: Path, hit: Hit) -> None:
    """The cited page (a PDF slide deck's slide), drawn with the passage highlighted."""
    c = hit.chunk
    shown = cited_page(str(pdf), c.page_start, c.text, c.unit)
    st.image(shown.png, caption=shown.caption, width="stretch")


def show_cited_text(hit: Hit, key: str) -> None:
    """A passage without a PDF page: the text of its slide or of its section, it marked
    (``CSS`` paints the ``passage-`` container in the PDF page's yellow). Inert, as every
    passage: a web page's or a Markdown file's text never renders as live markup."""
    from mitra.chat.cited_page import cited_text
    from mitra.store.filters import SearchFilter

    c = hit.chunk
    shown = cited_text(kb().chunks(c.analysis_id, SearchFilter(version=c.version, doc_id=c.doc_id)), c)
    with st.container(key=f"cited-text-{key}"):
        st.markdown(f"**{inert_markdown(shown.title)}**")
        for passage in shown.passages:
            if passage.heading:
                st.caption(inert_markdown(passage.heading))
            if passage.cited:
                with st.container(key=f"passage-{key}"):
                    st.markdown(shaped(passage.chunk))
            else:
                st.markdown(shaped(passage.chunk))


def shaped(chunk: Chunk) -> str:
    """A passage as inert Markdown, a table as a table and a slide's items a line each."""
    return passage_markdown(chunk.text, table=chunk.kind is ChunkKind.table, lines=chunk.unit == "slide")


def cited_view(document: Document | None, hit: Hit) -> tuple[str, bool]:
    """How the cited source is shown: the switch's label, and whether a PDF page is drawn
    (a PDF's, a PDF slide deck's) rather than the text of the passage's slide or section,
    as indexed (also what a PDF no longer on this machine gets)."""
    c = hit.chunk
    pdf = document is not None and (path := local_pdf(document)) is not None and path.is_file() \
        and c.page_start is not None
    if pdf or (c.unit == "slide" and c.page_start is not None):
        return f"Show {'slide' if c.unit == 'slide' else 'page'} {c.page_start} with the passage", pdf
    return "Show in its section", False


def show_cited_source(document: Document | None, hit: Hit, key: str) -> None:
    """Behind a switch: the cited page drawn, or the text of its slide or section, and the
    original file to download."""
    label, drawn = cited_view(document, hit)
    if not st.toggle(label, key=f"source-{key}"):
        return
    with user_errors():
        if drawn:
            show_cited_page(local_pdf(document), hit)
        else:
            show_cited_text(hit, key)
    if document is not None:  # also when the view failed: the original may still open
        offer_original(document, key)


def source_card(
    n: int, hit: Hit, documents: dict[tuple[str, str], DocumentRecord], expert: bool, cited: bool = False,
    key: str = "", live: bool = False, with_analysis: bool = False,
) -> None:
    """Passage [n]: where it is from, its text, and its page (drawn, passage highlighted) or
    its slide's or section's text. ``key`` tells the cards of different answers apart. ``live``
    (while the answer streams): the text only, no toggles, since a click reruns the page and
    stops the answer. ``with_analysis``: the label names the passage's analysis (an answer
    drawing on several)."""
    c = hit.chunk
    icon = ":material/push_pin:" if cited else ":material/article:"
    label = source_label(n, hit, with_analysis)
    with st.expander(inert_markdown(label) + (" · cited" if cited else ""), expanded=False, icon=icon):
        record = documents.get((c.doc_id, c.version))
        meta = [f"**{inert_markdown(c.doc_id)}** {version_label(c.version)}" + (" (superseded)" if c.superseded else "")]
        if c.section_path:
            meta.append(f"section *{inert_markdown(c.section_path)}*")
        if c.anchor:
            meta.append(f"#{inert_markdown(c.anchor)}")
        if c.page_label:
            meta.append(c.page_label)
        if c.kind.value != "body":
            meta.append(c.kind.value)
        st.caption(" · ".join(meta))
        # st.markdown renders $...$ as LaTeX, which is how equations survive extraction.
        st.markdown(shaped(c))
        if live:
            return
        document = record.document if record else None
        show_cited_source(document, hit, f"{key}-{n}")
        pdf = document is not None and local_pdf(document) is not None
        link = page_link(document, c.page_start if pdf else None, c.anchor) if document else None
        if link and reachable(link):
            where = ", at this section" if c.anchor else ", at this page" if pdf and c.page_start else ""
            st.caption(f":material/open_in_new: [The {'PDF' if pdf else 'original'} on its portal{where}]({link})")
        elif link:  # no dead link: the page above is drawn from the copy kept at the crawl
            st.caption(f":material/link_off: Its portal ({inert_markdown(urlparse(link).netloc)}) is not reachable now.")
        if expert:
            st.caption(" · ".join(f"{k} {v:.3g}" for k, v in hit.scores.items()))


def stream_inert(slot, tokens: Iterator[str]) -> str:
    """Stream model output into ``slot``, the whole text made inert again at every token:
    an image or link completed by the next token never renders as one."""
    text = ""
    for token in tokens:
        text += token
        slot.markdown(inert_markdown(text))
    return text


def clear_on_first(slot, tokens: Iterator[str]) -> Iterator[str]:
    """``tokens``, emptying ``slot`` (the wait's line) when the first one comes."""
    for token in tokens:
        if slot is not None:
            slot.empty()
            slot = None
        yield token


def documents_by_version(analysis_id: str) -> dict[tuple[str, str], DocumentRecord]:
    return {(d.document.doc_id, d.document.version): d for d in kb().documents(analysis_id)}


def documents_for(hits: list[Hit]) -> dict[tuple[str, str], DocumentRecord]:
    """The documents of every analysis the passages come from, by (doc_id, version)."""
    return {key: record for analysis_id in dict.fromkeys(h.chunk.analysis_id for h in hits)
            for key, record in documents_by_version(analysis_id).items()}


@st.cache_resource
def feedback_store():
    from mitra.evaluation.feedback import FeedbackStore

    return FeedbackStore.open(settings())


@st.cache_resource
def conversation_store():
    from mitra.store.conversations import ConversationStore

    return ConversationStore.open(settings())


@st.cache_resource
def prompt_speed():
    """The model's measured prompt speed: one model serves every session of the process."""
    from mitra.chat.wait import PromptSpeed

    return PromptSpeed()


def answerer():
    """The answering model, or a stand-in that waits for it while it is still starting
    (``mitra.chat.pending``): the chat draws at once."""
    from mitra.chat.pending import PendingAnswerer

    return PendingAnswerer(preloaded().answerer)


def model_label() -> str:
    from mitra.chat.session import RetrievalOnly

    current = answerer()
    if not current.ready:
        return "Model: starting in the background (the first answer waits for it)"
    loaded = current.loaded()
    if isinstance(loaded, RetrievalOnly):
        return f"⚠️ No language model: {loaded.error}"
    return f"Model: {loaded.model_info.name}"


def answer_details(answer) -> None:
    """Expert view: the time of every stage, and which model answered."""
    timings = {k: v for k, v in answer.timings.model_dump().items() if v is not None}
    st.caption(
        " · ".join(f"{k.removesuffix('_ms')} {v:,.0f} ms" for k, v in timings.items())
        + f" · {answer.retrieved} retrieved, {len(answer.sources)} shown to the model"
        + (f" · {answer.completion_tokens} tokens" if answer.completion_tokens else "")
        + (f" · {answer.model}" if answer.model else "")
        + (f" · {answer.ranking}" if answer.ranking else "")
    )


def highlighted_quote(quote) -> str:
    """A passage's sentence (or table row under its header) quoted in an answer, inert, its
    number in bold, what it is stated for before it, and its siblings side by side, each
    labelled and none in bold: "observed 5.0 σ · expected 5.8 σ"."""
    before, number, after = (quote.sentence[:quote.start], quote.sentence[quote.start:quote.end],
                             quote.sentence[quote.end:])
    label = f"{inert_markdown(quote.label)}: " if quote.label else ""
    header = f"{inert_markdown(quote.header)} / " if quote.header else ""
    text = f"{label}“{header}{inert_markdown(before)}**{inert_markdown(number)}**{inert_markdown(after)}”"
    if quote.siblings:
        text += "  \nBeside it: " + " · ".join(f"{inert_markdown(s.label or 'another value')} {inert_markdown(s.number)} "
                                               f"[{s.passage}]" for s in quote.siblings)
    return text
