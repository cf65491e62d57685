"""Property-based tests: inputs nobody wrote by hand.

* the JSONL reader, given any bytes, gives records or one ``InputError``, never
  anything else;
* the chunker, given any Markdown, LaTeX or plain text, either keeps every word of it
  (coverage 1.0; prose that cites papers inline included, none of it dropped as a
  reference list) or reports the loss, and never crashes;
* ``inert_markdown`` leaves nothing a browser would fetch, whatever the text.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ingest.chunk.from_text import chunk_text
from ingest.sources.jsonl import JsonlAnalysis
from mitra.core.jsonl import InputError, JsonlFile
from mitra.ui.render import inert_markdown
from mitra.core.types import Document

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
DOC = Document(analysis_id="A", doc_id="d")

WORDS = st.sampled_from(
    "muon jet background signal mass decay Higgs boson yield efficiency trigger fit 13 TeV pT 0.5 % the of".split()
)
SENTENCE = st.lists(WORDS, min_size=1, max_size=25).map(lambda w: " ".join(w).capitalize() + ".")
HEADING = st.lists(WORDS, min_size=1, max_size=5).map(lambda w: " ".join(w).title())
# Prose that cites inline, as papers do: never taken for a reference list.
CITED = st.tuples(SENTENCE, st.sampled_from([
    "(Smith et al. 2019, ApJ, 873, 12)", "[12, 14]", "(Phys. Rev. D 98 (2018) 030001)", "arXiv:1805.01234",
    "(Riess, A. G. 2022, ApJL, 934, L7)", "in Ref. [3] (JHEP 04 (2017) 023)",
])).map(lambda pair: f"{pair[0][:-1]} {pair[1]}.")
MATH = st.sampled_from(["$x$", "$p_T > 20$", "$\\sqrt{s} = 13$", "$H \\to \\mu\\mu$", "$$E = mc^2$$"])


@FAST
@given(st.binary(max_size=400))
def test_the_jsonl_reader_gives_records_or_one_input_error(tmp_path, data):
    path = tmp_path / "any.jsonl"
    path.write_bytes(data)
    try:
        records = list(JsonlFile(path, JsonlAnalysis))
    except InputError as error:
        assert str(error).startswith(str(path)) and "\n" not in str(error)
    else:
        assert all(isinstance(r, JsonlAnalysis) for r in records)


@st.composite
def markdown_papers(draw) -> str:
    blocks = []
    for _ in range(draw(st.integers(1, 6))):
        blocks.append("#" * draw(st.integers(1, 3)) + " " + draw(HEADING))
        for _ in range(draw(st.integers(0, 3))):
            blocks.append(" ".join(draw(st.lists(st.one_of(SENTENCE, MATH, CITED), min_size=1, max_size=4))))
    return "\n\n".join(blocks)


@st.composite
def plain_papers(draw) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        lines.append(draw(HEADING))
        lines += [" ".join(draw(st.lists(st.one_of(SENTENCE, CITED), min_size=2, max_size=4)))
                  for _ in range(draw(st.integers(1, 3)))]
    return "\n".join(lines)


@st.composite
def latex_papers(draw) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 5))):
        parts.append(f"\\{draw(st.sampled_from(['section', 'subsection']))}{{{draw(HEADING)}}}")
        parts += [" ".join(draw(st.lists(st.one_of(SENTENCE, MATH), min_size=1, max_size=4)))
                  for _ in range(draw(st.integers(0, 3)))]
    return "\n\n".join(parts)


@FAST
@given(st.one_of(markdown_papers(), plain_papers(), latex_papers()))
def test_structured_papers_keep_every_word(text):
    """Prose citing papers inline included: nothing is dropped as a reference list."""
    result = chunk_text(DOC, text, 50, 400)
    assert result.coverage == 1.0 and not result.dropped, (result.format, result.dropped, text)


@FAST
@given(st.text(max_size=600), st.sampled_from(["auto", "markdown", "latex", "text"]))
def test_any_text_is_chunked_or_its_loss_is_measured(text, fmt):
    result = chunk_text(DOC, text, 50, 400, fmt)
    assert 0.0 <= result.coverage <= 1.0
    assert all(c.text.strip() for c in result.chunks)


URL = st.sampled_from(["http://127.0.0.1:9/leak?q=secret", "https://evil.example/x.png", "www.evil.example/x"])


@FAST
@given(st.lists(st.one_of(st.text(max_size=30), URL.map(lambda u: f"![a]({u})"), URL.map(lambda u: f"[t]({u})"),
                          URL.map(lambda u: f"<{u}>"), URL), max_size=8))
def test_inert_markdown_leaves_no_image_or_link(pieces):
    shown = inert_markdown(" ".join(pieces))
    assert not re.search(r"!\[[^\]]*\]\(", shown)  # no image
    assert not re.search(r"\]\((https?:|www\.)", shown)  # no inline link
    assert inert_markdown(shown) == shown
