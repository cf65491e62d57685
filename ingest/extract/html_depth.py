"""A web page nested deeper than libxml2 builds: read, its deepest structure flattened.

libxml2 (lxml) stops building a page's tree 256 elements deep and drops what lies below,
and trafilatura parses with it too: a page whose text sits in 300 nested ``div``s (a
broken editor's output, or a hostile page) would lose that text and be refused as a page
with no main content. Such a page is written again with the standard library's streaming
parser, which has no depth limit: elements down to ``MAX_DEPTH`` keep their tags; below
it only their text is kept, a block element's end a line break, and scripts and styles
are dropped. The reader then reads the page as any other and says what was flattened.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

MAX_DEPTH = 200  # well inside libxml2's 256, and the reader's recursion
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}
_SELF_CLOSING = {"p", "li", "dt", "dd", "tr", "td", "th", "option"}  # a second one closes the first
_NO_TEXT = {"script", "style", "template", "noscript", "svg", "head", "title"}
_INLINE = {"a", "abbr", "b", "bdi", "bdo", "big", "cite", "code", "del", "dfn", "em", "font", "i", "ins", "kbd",
           "label", "mark", "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u",
           "var"}
_CHARSET = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?([A-Za-z0-9_-]+)", re.I)


def too_deep(parser_log) -> bool:
    """Whether libxml2 stopped building the tree at its depth limit (its error log)."""
    return any("Excessive depth" in entry.message for entry in parser_log)


def decoded(raw: bytes) -> str:
    """The page's text: its declared charset, else UTF-8 (a byte that is not, replaced)."""
    declared = _CHARSET.search(raw[:4096])
    try:
        return raw.decode(declared[1].decode() if declared else "utf-8", "replace")
    except LookupError:
        return raw.decode("utf-8", "replace")


class _Flattener(HTMLParser):
    def __init__(self, max_depth: int) -> None:
        super().__init__(convert_charrefs=True)
        self.max_depth = max_depth
        self.out: list[str] = []
        self.open: list[str] = []  # the elements open now, outermost first
        self.deepest = 0
        self.hidden = 0  # open elements below max_depth whose text is no text (a script)

    def handle_decl(self, decl: str) -> None:
        self.out.append(f"<!{decl}>")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SELF_CLOSING and self.open and self.open[-1] == tag:
            self.handle_endtag(tag)
        if len(self.open) < self.max_depth:
            rendered = "".join(f' {k}="{html.escape(v, quote=True)}"' if v is not None else f" {k}"
                               for k, v in attrs)
            self.out.append(f"<{tag}{rendered}>")
        elif tag not in _INLINE and tag not in _VOID:
            self.out.append("\n")
        elif tag == "br":
            self.out.append("\n")
        if tag in _VOID:
            return
        if len(self.open) >= self.max_depth and tag in _NO_TEXT:
            self.hidden += 1
        self.open.append(tag)
        self.deepest = max(self.deepest, len(self.open))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag not in self.open:
            return  # a stray end tag, as a browser ignores it
        while self.open:
            closed = self.open.pop()
            if len(self.open) < self.max_depth:
                self.out.append(f"</{closed}>")
            else:
                if closed in _NO_TEXT:
                    self.hidden -= 1
                if closed not in _INLINE:
                    self.out.append("\n")
            if closed == tag:
                return

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.out.append(html.escape(data, quote=False))


def flattened(text: str, max_depth: int = MAX_DEPTH) -> tuple[str, int]:
    """The page with elements below ``max_depth`` reduced to their text, and how deep it
    was nested."""
    flattener = _Flattener(max_depth)
    flattener.feed(text)
    flattener.close()
    return "".join(flattener.out), flattener.deepest
