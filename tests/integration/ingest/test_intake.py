"""Text intake through the CLI: every format chunks into sections, nothing is lost
silently (a bad document refuses its analysis only, and is named), what is dropped
on purpose is reported apart from loss, and the same question always gets the same
ranking."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from tests.fixtures.samples import ANALYSES, write_jsonl
from tests.fixtures.samples import MARKDOWN_PAPER, PLAIN_PAPER

LATEX_PAPER = r"""\section{Introduction} The $\PW$ boson mass is measured with 95\% of the data.

\subsection{Method} Templates of the muon $\pt$ spectrum are fitted.
\begin{table}\caption{Systematic uncertainties.}\begin{tabular}{ll} PDF & 9 \\ \end{tabular}\end{table}
\section*{Acknowledgements} We thank the funding agencies.
"""


def _analysis(analysis_id: str, text: str, **document) -> dict:
    return {"analysis_id": analysis_id, "title": f"Paper {analysis_id}", "abstract": "A paper.",
            "documents": [{"doc_id": "paper", "text": text, **document}]}


def test_markdown_latex_and_plain_papers_index_with_sections_and_coverage(cli, tmp_path):
    papers = write_jsonl(tmp_path / "papers.jsonl", [
        _analysis("MD-1", MARKDOWN_PAPER), _analysis("TEX-1", LATEX_PAPER), _analysis("TXT-1", PLAIN_PAPER),
    ])
    result = cli("index-jsonl", str(papers), "--json")
    assert result.exit_code == 0, result.output
    indexed = {a["analysis_id"]: a["documents"][0] for a in json.loads(result.stdout)["indexed"]}
    assert {a: d["format"] for a, d in indexed.items()} == {"MD-1": "markdown", "TEX-1": "latex", "TXT-1": "text"}
    assert all(d["coverage"] == 1.0 and d["chunks"] > 0 for d in indexed.values())

    stats = json.loads(cli("stats", "--json").stdout)
    documents = {a["analysis_id"]: a["documents"][0] for a in stats["per_analysis"]}
    assert documents["TEX-1"]["coverage"] == 1.0 and documents["MD-1"]["format"] == "markdown"
    hits = json.loads(cli("search", "--analysis", "TEX-1", "systematic uncertainties", "--json").stdout)["hits"]
    assert any(h["section"] == "Introduction > Method" for h in hits)


def test_a_batch_indexes_every_good_analysis_names_the_bad_one_and_a_rerun_adds_only_it(cli, tmp_path):
    empty = _analysis("EMPTY-1", "# Only a title\n<!-- everything else was lost by the converter -->")
    papers = write_jsonl(tmp_path / "papers.jsonl", [ANALYSES[0], empty, ANALYSES[1]])
    result = cli("index-jsonl", str(papers))
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    refused = [line for line in result.output.splitlines() if line.startswith("refused:")]
    assert len(refused) == 1
    assert "analysis 'EMPTY-1' document 'paper' v1 (markdown): its text yields no chunks" in refused[0]
    assert "indexed 2 analyses" in result.output and "1 refused" in result.output
    stats = json.loads(cli("stats", "--json").stdout)
    assert {a["analysis_id"] for a in stats["per_analysis"]} == {"HIG-24-001", "EXO-24-002"}
    hits = json.loads(cli("search", "--analysis", "EXO-24-002", "dominant background", "--json").stdout)["hits"]
    assert hits

    fixed = _analysis("EMPTY-1", "# Only a title\nThe converter was run again and kept the text.")
    write_jsonl(papers, [ANALYSES[0], fixed, ANALYSES[1]])
    result = cli("index-jsonl", str(papers), "--json")
    assert result.exit_code == 0, result.output
    rerun = json.loads(result.stdout)
    assert [a["analysis_id"] for a in rerun["indexed"]] == ["EMPTY-1"]
    assert rerun["unchanged"] == ["HIG-24-001", "EXO-24-002"] and rerun["refused"] == []
    assert json.loads(cli("stats", "--json").stdout)["analyses"] == 3


def test_allow_low_coverage_indexes_a_document_that_yields_no_chunks(cli, tmp_path):
    empty = _analysis("EMPTY-1", "# Only a title\n<!-- everything else was lost by the converter -->")
    result = cli("index-jsonl", str(write_jsonl(tmp_path / "p.jsonl", [empty])), "--allow-low-coverage")
    assert result.exit_code == 0, result.output
    assert json.loads(cli("stats", "--json").stdout)["analyses"] == 1


CONVERTED = """# Time-delay cosmography

$^{1}$Department of Physics, University of Oxford, Keble Road, Oxford OX1 3RH, UK

## 1. Introduction

The expansion rate $H_0$ is measured from lensed quasars, following Suyu et al. (2017, MNRAS, 468, 2590).

## 3. Measurement

## 3.2. Hubble constant

![img-21.jpeg](img-21.jpeg)

Figure 3: Posterior of the Hubble constant.

| lens | $H_0$ |
|---|---|
| B1608 | 71.0 |

We thank the referee.

Riess, A. G., Yuan, W., Macri, L. M., et al. 2022, ApJL, 934, L7
Planck Collaboration, Aghanim, N., Akrami, Y., et al. 2020, A&A, 641, A6
Freedman, W. L. 2021, ApJ, 919, 16
"""


def test_words_dropped_on_purpose_are_reported_on_their_own_line_never_as_loss(cli, tmp_path):
    result = cli("index-jsonl", str(write_jsonl(tmp_path / "p.jsonl", [_analysis("CONV-1", CONVERTED)])))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("CONV-1 paper v1 (markdown):"))
    assert "coverage 100.0%" in lines[at]
    assert lines[at + 1].startswith("  dropped on purpose: ")
    for kind in ("references", "affiliations", "acknowledgements", "images"):
        assert kind in lines[at + 1]
    document = json.loads(cli("stats", "--json").stdout)["per_analysis"][0]["documents"][0]
    assert document["coverage"] == 1.0 and document["dropped"]["references"] > 20
    hits = json.loads(cli("search", "--analysis", "CONV-1", "Hubble constant lens", "--json").stdout)["hits"]
    assert any(h["section"] == "3. Measurement > 3.2. Hubble constant" and "B1608" in h["text"] for h in hits)
    assert not any("Aghanim" in h["text"] or "img-21" in h["text"] for h in hits)


class _CheapEmbedder:
    """Vectors from a text's length: the store's work without a model's."""

    name, dim = "cheap", 4

    def embed_passages(self, texts, show_progress=False):
        import numpy as np

        return np.array([[len(t) % 97 + 1, 1, 0, 0] for t in texts], np.float32)

    embed_queries = embed_passages

    def lengths(self, texts):
        return [len(t) for t in texts]


def test_a_450_kb_converted_paper_indexes_in_seconds_besides_embedding(tmp_path):
    """The issue's size through the whole intake (chunking, coverage, Chroma and BM25
    writes), with the model's time taken out: that is the embedder's, measured apart."""
    from ingest.sources.jsonl import JsonlAnalysis, index_records
    from mitra.core.settings import Settings
    from mitra.store.knowledge_base import KnowledgeBase
    from tests.unit.ingest.test_converter_shapes import converter_paper

    text = converter_paper(720)
    assert len(text.encode()) > 450_000
    kb = KnowledgeBase(Settings(data_dir=tmp_path / "kb", reranker="none"), _CheapEmbedder())
    start = time.perf_counter()
    report = index_records(kb, [JsonlAnalysis.model_validate(_analysis("BIG-1", text))])
    elapsed = time.perf_counter() - start
    document = report.indexed[0].documents[0]
    assert document["coverage"] >= 0.99 and document["chunks"] > 700 and document["dropped"]["references"] > 40
    assert elapsed < 60, elapsed


@pytest.mark.slow
def test_a_450_kb_converted_paper_indexes_with_the_real_embedder(cli, tmp_path):
    """The same paper through the CLI and the real model: about 730 chunks and their
    sentence windows to embed, minutes on a busy CPU (the time is the model's)."""
    from tests.unit.ingest.test_converter_shapes import converter_paper

    text = converter_paper(720)
    result = cli("index-jsonl", str(write_jsonl(tmp_path / "p.jsonl", [_analysis("BIG-1", text)])), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["indexed"][0]["documents"][0]["coverage"] >= 0.99
    hits = json.loads(cli("search", "--analysis", "BIG-1", "time delays of system 17", "--json").stdout)["hits"]
    assert any("17" in h["text"] for h in hits)


def test_a_front_end_that_loses_text_is_caught_by_coverage(cli, tmp_path, monkeypatch):
    """The old bug, replayed: a front end that keeps only the first paragraph of a paper
    (as the LaTeX detector once did with Markdown holding \\begin{aligned}). Coverage
    sees the loss: the document is indexed with what it has and flagged to the admin, with
    its coverage by kind of block, in the summary and in `mitra stats --json`; with
    --refuse-low-coverage it is refused and named instead."""
    from ingest.chunk import from_text as chunking

    real = chunking._parse_markdown

    def lossy(text, *args, **kwargs):
        parsed = real(text, *args, **kwargs)
        parsed.paragraphs = parsed.paragraphs[:1]
        return parsed

    monkeypatch.setattr(chunking, "_parse_markdown", lossy)
    papers = write_jsonl(tmp_path / "papers.jsonl", [_analysis("MD-2", MARKDOWN_PAPER), _analysis("TEX-2", LATEX_PAPER)])
    refused = cli("index-jsonl", str(papers), "--refuse-low-coverage")
    assert refused.exit_code == 1, refused.output
    assert "refused: analysis 'MD-2' document 'paper' v1 (markdown): only " in refused.output
    assert "of its words reach a chunk (min_coverage 90%)" in refused.output
    assert [a["analysis_id"] for a in json.loads(cli("stats", "--json").stdout)["per_analysis"]] == ["TEX-2"]

    result = cli("index-jsonl", str(papers))
    assert result.exit_code == 0, result.output
    flagged = [line for line in result.output.splitlines() if line.startswith("flagged:")]
    assert len(flagged) == 1 and "analysis 'MD-2' document 'paper' v1 (markdown): only " in flagged[0]
    assert "indexed with what it has (by block: body " in flagged[0]
    assert "1 flagged below min_coverage" in result.output
    stats = json.loads(cli("stats", "--json").stdout)
    (low,) = stats["low_coverage"]
    assert (low["analysis_id"], low["doc_id"]) == ("MD-2", "paper") and low["coverage"] < 0.9
    assert low["coverage_by_kind"]["body"]["coverage"] < 0.9 <= low["coverage_by_kind"]["heading"]["coverage"]
    documents = {a["analysis_id"]: a["documents"][0] for a in stats["per_analysis"]}
    assert documents["MD-2"]["low_coverage"] and not documents["TEX-2"]["low_coverage"]
    assert documents["TEX-2"]["coverage_by_kind"]["table"] == {"words": 4, "coverage": 1.0}
    hits = json.loads(cli("search", "--analysis", "MD-2", "muon", "--json").stdout)["hits"]
    assert hits, "the flagged document is searchable with what it has"


def test_the_format_field_is_honoured(cli, tmp_path):
    text = "# Selection\nMuons need pT > 20 GeV."
    papers = write_jsonl(tmp_path / "papers.jsonl", [_analysis("A-1", text, format="text")])
    assert cli("index-jsonl", str(papers)).exit_code == 0
    hits = json.loads(cli("search", "--analysis", "A-1", "muons", "--json").stdout)["hits"]
    assert hits[0]["section"] == "" and hits[0]["text"].startswith("# Selection")
    bad = write_jsonl(tmp_path / "bad.jsonl", [_analysis("A-2", text, format="html")])
    result = cli("index-jsonl", str(bad))
    assert result.exit_code == 2 and "format" in result.output


RANKINGS = """
import json, sys
from mitra.retrieval.pipeline import build_pipeline
p = build_pipeline(with_reranker=False)
out = {}
for q in ("dominant background", "muon momentum scale", "mass", "limits on mediators"):
    out[q] = {
        "route": [(c.analysis.id, round(c.score, 6)) for c in p.router.route(q, top_n=3).candidates],
        "search": [(h.chunk.id, round(h.score, 6)) for h in p.retriever.retrieve("HIG-24-001", q, system="hybrid")],
    }
print(json.dumps(out))
"""


def test_the_same_question_gets_the_same_ranking_in_every_process(app_data_dir):
    """Ties are broken by id, never by the order of a hash-seeded set or dict."""
    runs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "MITRA_DATA_DIR": str(app_data_dir), "MITRA_RERANKER": "none"}
        done = subprocess.run([sys.executable, "-c", RANKINGS], env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        runs.append(json.loads(done.stdout.splitlines()[-1]))
    assert runs[0] == runs[1]
    assert all(len(r["route"]) == 3 and r["search"] for r in runs[0].values())
