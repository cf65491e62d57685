"""The shapes PDF-to-Markdown converters really produce (Nougat, Marker, MinerU):
numbered headings, pipe tables, image lines, LaTeX maths, affiliations under the title,
a bare acknowledgement and a reference list with no heading. What is left out on
purpose is reported by kind and never counted as loss; prose is never left out."""

from __future__ import annotations

import time

import pytest

from ingest.chunk.from_text import chunk_text, parse_text
from ingest.chunk.shapes import shape_of
from mitra.core.types import ChunkKind, Document

DOC = Document(analysis_id="A", doc_id="paper")

HEAD = """# A measurement of the Hubble constant from lensed quasars

A. Author$^{1}$, B. Writer$^{2}$

$^{1}$Department of Physics, University of Oxford, Keble Road, Oxford OX1 3RH, UK
$^{2}$Kavli Institute for Cosmology, University of Cambridge, Cambridge CB3 0HA, UK
a.author@physics.ox.ac.uk

## Abstract

We measure the expansion rate $H_0$ from time delays of lensed quasars.
"""

BODY = """## {n}. Method {n}

Time delays between the images give $\\Delta t \\propto D_{{\\Delta t}}$, which fixes the distance ratio {n}.
The lens model is fitted to the imaging data [12, 14], following Suyu et al. (2017, MNRAS, 468, 2590).

### {n}.2. Hubble constant

The posterior of $H_0$ in section {n} is

$$
H_0 = 73.3^{{+1.7}}_{{-1.8}}\\,\\mathrm{{km\\,s^{{-1}}\\,Mpc^{{-1}}}}
$$

where the uncertainty is statistical.

![img-{n}.jpeg](img-{n}.jpeg)

Figure {n}: Posterior distributions of the Hubble constant for lens {n}.

Table {n}: Time delays of system {n}.

| image pair | delay (days) | error |
|---|---|---|
| AB | {n}.5 | 0.7 |
| CD | 11.{n} | 1.2 |
"""

TAIL = """## 9. Conclusions

The time-delay distance gives a value of the expansion rate that agrees with the distance ladder.

We thank the referee for comments that improved the paper, and the H0LiCOW team for the lens models.

Riess, A. G., Yuan, W., Macri, L. M., et al. 2022, ApJL, 934, L7
Planck Collaboration, Aghanim, N., Akrami, Y., et al. 2020, A&A, 641, A6
Suyu, S. H., Bonvin, V., Courbin, F., et al. 2017, MNRAS, 468, 2590

Wong, K. C., Suyu, S. H., Chen, G. C.-F., et al. 2020, MNRAS, 498, 1420

[15] A. G. Riess et al., Astrophys. J. Lett. 934 (2022) L7, arXiv:2112.04510
[16] W. L. Freedman, Astrophys. J. 919 (2021) 16, arXiv:2106.15656
"""


def converter_paper(sections: int = 3) -> str:
    return HEAD + "\n".join(BODY.format(n=n) for n in range(1, sections + 1)) + TAIL


def test_numbered_headings_become_nested_sections():
    sections = {tuple(p.section) for p in parse_text(converter_paper()).paragraphs}
    assert ("2. Method 2", "2.2. Hubble constant") in sections
    # "## 3. ..." after "### 2.2. ..." starts a new top-level section, whatever the "#" count
    assert ("3. Method 3",) in sections and ("2.2. Hubble constant",) not in sections


def test_tables_maths_and_captions_reach_chunks_and_image_lines_are_dropped_on_purpose():
    chunked = chunk_text(DOC, converter_paper(), 100, 1200)
    texts = [c.text for c in chunked.chunks]
    joined = "\n".join(texts)
    tables = [c for c in chunked.chunks if c.kind is ChunkKind.table]
    assert any("\nAB | 1.5 | 0.7" in c.text for c in tables)  # a row a line, as every reader writes tables
    assert "$H_0$" in joined and "73.3" in joined  # inline and display maths kept
    assert "where the uncertainty is statistical" in joined
    assert any(c.kind is ChunkKind.caption and c.text.startswith("Figure 2:") for c in chunked.chunks)
    assert "img-" not in joined and "jpeg" not in joined
    assert chunked.dropped["images"] > 0


def test_reference_list_without_heading_affiliations_and_acknowledgements_are_dropped_not_lost():
    chunked = chunk_text(DOC, converter_paper(), 100, 1200)
    joined = "\n".join(c.text for c in chunked.chunks)
    assert chunked.coverage >= 0.99
    assert set(chunked.dropped) == {"references", "affiliations", "acknowledgements", "images"}
    assert chunked.dropped["references"] >= 40
    assert "Aghanim" not in joined and "Freedman" not in joined  # the reference list
    assert "Keble Road" not in joined and "physics.ox.ac.uk" not in joined  # the affiliations
    assert "referee" not in joined  # the acknowledgement
    # prose that cites a paper inline stays, and so do the conclusions before the list
    assert "following Suyu et al. (2017, MNRAS, 468, 2590)" in joined
    assert "agrees with the distance ladder" in joined


def test_a_long_reference_list_with_no_heading_is_reported_apart_from_loss():
    """The issue's paper: a long reference list with no heading above it."""
    references = "\n".join(f"Author{i}, A. B., Other, C. D., et al. 20{i % 25:02d}, ApJ, {800 + i}, {i}"
                           for i in range(120))
    chunked = chunk_text(DOC, converter_paper(1) + references, 100, 1200)
    assert "Author7" not in " ".join(c.text for c in chunked.chunks)
    assert chunked.coverage >= 0.99 and chunked.dropped["references"] > 120 * 5


@pytest.mark.parametrize("prose", [
    "As shown by Smith et al. (2019, ApJ, 873, 12), the Hubble constant is larger than the CMB value.",
    "Riess et al. (2022) measured $H_0 = 73.04$ from Cepheids (ApJL 934, L7), which is in tension with Planck.",
    "1. We select events with two muons recorded in 2018 (Phys. Rev. D 98, 030001).",
    "The data were collected at CERN, Geneva, in 2018.",
    "We measure the Hubble constant with 100 supernovae.",
])
def test_a_body_paragraph_is_never_taken_for_references_affiliations_or_thanks(prose):
    assert shape_of(prose) is None


def test_one_citation_like_paragraph_is_kept_a_run_of_them_is_dropped():
    one = "# Results\n\nSmith, J., Doe, A. 2019, ApJ, 873, 12\n\nThe fit converges."
    assert "Smith" in " ".join(c.text for c in chunk_text(DOC, one, 1, 1200).chunks)
    run = "# Results\n\nThe fit converges.\n\n" + "\n\n".join(
        f"[{i}] A. Author et al., Phys. Rev. D {90 + i} (20{10 + i}) 0300{i}, arXiv:18{i:02d}.01234" for i in range(3))
    chunked = chunk_text(DOC, run, 1, 1200)
    assert [c.text for c in chunked.chunks] == ["The fit converges."] and chunked.dropped["references"] > 0


def test_plain_text_converter_output_drops_the_same_shapes():
    text = converter_paper(1).replace("#", "").replace("$$", "")
    chunked = chunk_text(DOC, text, 100, 1200, "text")
    joined = "\n".join(c.text for c in chunked.chunks)
    assert "Aghanim" not in joined and "referee" not in joined
    assert "following Suyu et al." in joined and chunked.coverage >= 0.95


def test_a_450_kb_paper_chunks_in_seconds():
    text = converter_paper(720)
    assert len(text.encode()) > 450_000
    start = time.perf_counter()
    chunked = chunk_text(DOC, text, 800, 1200)
    elapsed = time.perf_counter() - start
    assert chunked.coverage >= 0.99 and len(chunked.chunks) > 700
    assert elapsed < 20, elapsed
