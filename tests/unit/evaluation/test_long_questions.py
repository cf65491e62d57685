"""The long-paper set's questions are made mechanically: a caption asks for the sentences
that cite its figure (the caption itself left out of the ranking), and an expert question
is posed only where its answer pattern picks out a few sentences."""

from __future__ import annotations

import random

from benchmarks.corpora.long_questions import caption_questions, expert_questions, latex_paper, pdf_paper
from ingest.extract.layout import Block, BlockKind

LATEX = r"""\maketitle Authors here.
\section{Selection}\label{sec:sel}
Candidates are selected with a multivariate classifier trained on simulation.
The invariant-mass distribution of the selected candidates is shown in Fig.~\ref{fig:mass}.
A fit to it gives the yield.

The dominant systematic uncertainty comes from the background model.
\begin{figure}\includegraphics{mass.pdf}
\caption{Invariant-mass distribution of the selected candidates with the fit overlaid.}\label{fig:mass}
\end{figure}
\section{Results}
The result, $1.2 \pm 0.3\,(\text{stat}) \pm 0.1\,(\text{syst})$, is consistent with the Standard Model.
"""


def test_a_caption_asks_for_the_sentences_that_cite_its_figure():
    paper = latex_paper("LHCb-1", LATEX)
    (question,) = caption_questions(paper, random.Random(0))
    assert question.query == "Invariant-mass distribution of the selected candidates with the fit overlaid."
    (evidence,) = question.evidence
    assert evidence.startswith("Candidates are selected") and evidence.endswith("A fit to it gives the yield.")
    assert question.excluded == ["Invariant-mass distribution of the selected candidates with the fit overlaid."]


def test_expert_questions_are_posed_where_their_answer_pattern_picks_out_a_sentence():
    questions = {q.query: q.evidence for q in expert_questions(latex_paper("LHCb-1", LATEX))}
    assert questions["What is the dominant systematic uncertainty?"] == [
        "The dominant systematic uncertainty comes from the background model."]
    assert "consistent with the Standard Model" in questions["Is this result compatible with the SM?"][0]
    assert "How much data was analysed?" not in questions  # no sentence states a luminosity


def test_pdf_captions_are_cited_by_number_and_a_table_caption_leaves_its_rows_out():
    def block(kind: BlockKind, text: str) -> Block:
        return Block(page=3, bbox=(0.0, 0.0, 0.0, 0.0), text=text, kind=kind)

    blocks = [block(BlockKind.body, "Events are categorised by the classifier output. Figures 2 and 3 show the "
                                    "distributions in each category. Table 1 lists the yields."),
              block(BlockKind.caption, "Figure 3: Classifier output in the two-jet category for data and simulation."),
              block(BlockKind.caption, "Table 1: Expected and observed yields in each category of the analysis."),
              block(BlockKind.table, "category | expected | observed\nVBF | 12 | 15")]
    questions = {q.qid: q for q in caption_questions(pdf_paper("HEP-1", blocks), random.Random(0))}
    assert questions["HEP-1:figure 3"].query == "Classifier output in the two-jet category for data and simulation."
    assert questions["HEP-1:figure 3"].evidence == [blocks[0].text]
    assert questions["HEP-1:table 1"].excluded == [blocks[2].text, blocks[3].text]
