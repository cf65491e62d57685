"""Read a saved web page (TWiki, Confluence, Indico) into blocks: main content only.

trafilatura decides what the page's main content is; its output cannot be used as the
page's structure, because on wiki pages (whose content frame it does not recognise)
it drops the headings and lists and never keeps a heading's ``id``. So the two are
combined: the passages trafilatura keeps are found in the page's own tree (lxml), the
deepest element holding most of them (in more than one passage) is the content frame,
and that frame is read in document order: h1-h6 become sections with their anchor
(the heading's ``id``, or the ``name``/``id`` of an anchor inside or just before it, as
TWiki writes them; a page's one opening h1 is its title, over h2 sections), tables stay
tables (a row a line, the caption a passage of its own), lists one item a line. A page
nested deeper than libxml2 builds is flattened first (``ingest.extract.html_depth``).
Navigation, breadcrumbs, menus, sidebars and footers sit outside the frame and are
gone; inside it, ``nav``, forms, the page's own header and footer, and lists or
paragraphs that are (almost) only links (a table of contents, a menu bar) are left
out too.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import lxml.html
from lxml import etree

from ingest.extract.html_depth import MAX_DEPTH, decoded, flattened, too_deep
from ingest.extract.layout import Block, BlockKind
from ingest.extract.base import (
    CorruptFileError, ExtractedDocument, NoTextFoundError, Progress, finished, table_block, text_block,
)

_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_LEFT_OUT = {"script", "style", "noscript", "template", "nav", "aside", "form", "button", "select", "input",
             "textarea", "iframe", "svg", "object", "embed", "map"}
_INLINE = {"a", "abbr", "b", "bdi", "bdo", "big", "cite", "code", "del", "dfn", "em", "font", "i", "img", "ins",
           "kbd", "label", "mark", "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt",
           "u", "var", "wbr", "br", "math"}
_LISTS = {"ul", "ol", "dl"}
# trafilatura's elements that hold a passage, and the page's elements they come from
_KEPT = ("p", "head", "item", "cell", "quote", "code")
_PASSAGES = ("p", "li", "td", "th", "dd", "dt", "pre", "blockquote", "div", "h1", "h2", "h3", "h4", "h5", "h6")
_CHARSET = re.compile(rb"<meta[^>]+charset", re.I)
_FRAME_SHARE = 0.8  # the content frame holds at least this share of the kept text
_LINK_SHARE = 0.8  # a list or paragraph whose letters are links by this share is navigation (a table of contents)


def read_html(path: Path, progress: Progress | None = None) -> ExtractedDocument:
    import trafilatura

    raw = path.read_bytes()
    page, parser = _parsed(path, raw, _parser(raw))
    notes = []
    if too_deep(parser.error_log):  # libxml2 dropped what lies deeper than it builds
        text, depth = flattened(decoded(raw))
        raw = text.encode("utf-8")
        page, _ = _parsed(path, raw, lxml.html.HTMLParser(encoding="utf-8"))
        notes.append(f"the page nests elements {depth:,} deep: below {MAX_DEPTH} its text was read without its "
                     "structure")
    kept = trafilatura.extract(raw, output_format="xml", include_tables=True, include_comments=False,
                               config=_trafilatura_config())
    frame = _content_frame(page, _passages(kept)) if kept else None
    if frame is None:
        raise NoTextFoundError(path, "the page has no main content (a login or error page?)")
    blocks = _title_on_top(list(_blocks(frame)))
    headings = [b for b in blocks if b.kind is BlockKind.heading]
    title = next((b.text for b in headings if b.level == 1), "") or _text(page.find(".//title")) \
        or (headings[0].text if headings else "")
    return finished(path, blocks, pages=0, title=title, fmt="html", progress=progress, warnings=notes)


def _parsed(path: Path, raw: bytes, parser: lxml.html.HTMLParser):
    try:
        return lxml.html.document_fromstring(raw, parser=parser), parser
    except (etree.ParserError, ValueError) as exc:
        raise CorruptFileError(path, f"the HTML cannot be parsed ({exc})") from exc


def _title_on_top(blocks: list[Block]) -> list[Block]:
    """A page whose one h1 opens it is titled by it, as a Word file by its Title: the
    text before the first section sits under the title, and the h2 sections are the
    top level (not all nested under the title, which would put the page's title in
    every passage's section path)."""
    headings = [b for b in blocks if b.kind is BlockKind.heading]
    if headings and headings[0].level == 1 and sum(b.level == 1 for b in headings) == 1:
        for heading in headings[1:]:
            heading.level -= 1
    return blocks


def _parser(raw: bytes) -> lxml.html.HTMLParser:
    """A page that declares no charset is read as UTF-8 when it is (libxml2 would take it
    for Latin-1)."""
    if _CHARSET.search(raw[:4096]):
        return lxml.html.HTMLParser()
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return lxml.html.HTMLParser()
    return lxml.html.HTMLParser(encoding="utf-8")


@cache
def _trafilatura_config():
    """trafilatura's defaults, but a page's main content may be short (a one-paragraph
    run plan): its default 250 characters would send such a page to a fallback extractor
    that keeps the chrome."""
    from trafilatura.settings import use_config

    config = use_config()
    config.set("DEFAULT", "MIN_EXTRACTED_SIZE", "1")
    return config


def _text(element) -> str:
    return " ".join(element.text_content().split()) if element is not None else ""


def _passages(kept_xml: str) -> set[str]:
    tree = etree.fromstring(kept_xml.encode("utf-8"))
    return {t for t in (" ".join("".join(e.itertext()).split()) for tag in _KEPT for e in tree.iter(tag)) if t}


def _content_frame(page, passages: set[str]):
    """The deepest element holding ``_FRAME_SHARE`` of the kept passages' text in more
    than one passage (a single paragraph is no frame: its page's heading sits beside it)."""
    weight: Counter = Counter()
    count: Counter = Counter()
    counted: set = set()
    for element in page.iter(*_PASSAGES):
        text = _text(element)
        if text in passages and not any(a in counted for a in element.iterancestors()):
            counted.add(element)
            for node in (element, *element.iterancestors()):
                weight[node] += len(text)
                count[node] += 1
    body = page.find("body")
    node = body if body is not None else page
    total = weight[node]
    if not total:
        return None
    while True:
        heavy = next((c for c in node if isinstance(c.tag, str) and weight[c] >= _FRAME_SHARE * total
                      and count[c] > 1), None)
        if heavy is None:
            return node
        node = heavy


def _blocks(element) -> Iterator[Block]:
    """The element's blocks in document order; running text between block elements (the
    inline runs) is a paragraph of its own, unless it is only links (a menu bar)."""
    run: list[str] = [element.text or ""]
    links = 0  # characters of the run inside links
    for child in element:
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag in _INLINE:
            run.append("\n" if tag == "br" else child.text_content())
            links += sum(_letters(_text(a)) for a in child.iter("a"))
        elif tag and tag not in _LEFT_OUT and not _page_chrome(child, tag):
            yield from _paragraph(run, links)
            run, links = [], 0
            yield from _block(child, tag)
        run.append(child.tail or "")
    yield from _paragraph(run, links)


def _paragraph(run: list[str], links: int) -> Iterator[Block]:
    text = "".join(run)
    letters = _letters(text)
    if letters and links < _LINK_SHARE * letters:
        yield text_block(text, None)


def _block(element, tag: str) -> Iterator[Block]:
    if tag in _HEADINGS:
        yield text_block(" ".join(element.text_content().split()), None, BlockKind.heading, level=_HEADINGS[tag],
                         anchor=_anchor(element))
    elif tag == "table" and element.find(".//table") is None:
        caption = _text(element.find("caption"))
        if caption:
            yield text_block(caption, None, BlockKind.caption)
        rows = [[_text(cell) for cell in row if cell.tag in ("td", "th")] for row in element.iter("tr")]
        yield table_block(rows, None)
    elif tag in _LISTS:
        if _link_share(element) < _LINK_SHARE:
            yield text_block("\n".join(_text(item) for item in element if item.tag in ("li", "dt", "dd")), None)
    elif tag == "pre":
        yield text_block(element.text_content(), None)
    else:  # a container: a paragraph, a division, a layout table
        yield from _blocks(element)


def _page_chrome(element, tag: str) -> bool:
    """The page's own header and footer (an article's are its content)."""
    return tag in ("header", "footer") and not any(a.tag in ("article", "main") for a in element.iterancestors())


def _anchor(heading) -> str:
    """Where a link to this heading lands: its id, an anchor's inside it, or an empty
    ``<a name>`` just before it."""
    if heading.get("id"):
        return heading.get("id")
    inner = next((e for e in heading.iter() if e.get("id") or (e.tag == "a" and e.get("name"))), None)
    if inner is not None:
        return inner.get("id") or inner.get("name")
    before = heading.getprevious()
    if before is not None and before.tag == "a" and before.get("name") and not before.text_content().strip():
        return before.get("name")
    return ""


def _link_share(element) -> float:
    letters = _letters(_text(element))
    return sum(_letters(_text(a)) for a in element.iter("a")) / letters if letters else 0.0


def _letters(text: str) -> int:
    """Letters and digits: what a link share is counted in (separators like "›" are neither)."""
    return sum(ch.isalnum() for ch in text)
