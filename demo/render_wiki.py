"""An analysis's wiki topic as the wiki renders it: an HTML fragment (the portal wraps it
in its navigation chrome)."""

from __future__ import annotations

import html
import re

from demo.corpus_specs import Para, Section, TableBlock, WikiSpec


def anchor(title: str) -> str:
    """TWiki's anchor of a heading: its words run together ("Analysis recipe" -> "AnalysisRecipe")."""
    return "".join(w[:1].upper() + w[1:] for w in re.findall(r"[A-Za-z0-9]+", title))


def _html(text: str) -> str:
    """Escaped text keeping the content's few inline tags (<i>, <b>, <sub>; <super> is <sup>)."""
    escaped = html.escape(" ".join(text.split()), quote=False)
    escaped = re.sub(r"&lt;(/?)(i|b|sub)&gt;", r"<\1\2>", escaped)
    return re.sub(r"&lt;(/?)super&gt;", r"<\1sup>", escaped)


def wiki_body(wiki: WikiSpec) -> str:
    """The topic's text as the wiki renders it: its title (the author's ``---+!!`` heading),
    then headings with anchors, paragraphs and tables."""
    out = [f'<h1 id="{anchor(wiki.title)}">{_html(wiki.title)}</h1>']

    def walk(sections: list[Section], level: int) -> None:
        for section in sections:
            name = anchor(section.title)
            out.append(f'<h{level} id="{name}"><a name="{name}"></a>{_html(section.title)}</h{level}>')
            for block in section.blocks:
                if isinstance(block, Para):
                    out.append(f"<p>{_html(block.text)}</p>")
                elif isinstance(block, TableBlock):
                    head = "".join(f"<th>{_html(c)}</th>" for c in block.table.header)
                    rows = "".join("<tr>" + "".join(f"<td>{_html(c)}</td>" for c in row) + "</tr>"
                                   for row in block.table.rows)
                    out.append(f'<table class="twikiTable"><caption>{_html(block.caption)}</caption>'
                               f"<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
                else:
                    raise ValueError(f"wiki topic {wiki.topic}: only paragraphs and tables, not {type(block).__name__}")
            walk(section.subsections, level + 1)

    walk(wiki.sections, 2)
    return "\n".join(out) + "\n"
