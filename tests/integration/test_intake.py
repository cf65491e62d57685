"""Text intake through the CLI: every format chunks into sections, nothing is lost
silently, and the same question always gets the same ranking."""

from __future__ import annotations

import json
import os
import subprocess
import sys


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


def test_a_document_that_yields_no_chunks_stops_the_run_and_names_it(cli, tmp_path):
    empty = _analysis("EMPTY-1", "# Only a title\n<!-- everything else was lost by the converter -->")
    papers = write_jsonl(tmp_path / "papers.jsonl", [ANALYSES[0], empty])
    result = cli("index-jsonl", str(papers))
    assert result.exit_code == 2
    assert "analysis 'EMPTY-1' document 'paper' v1 (markdown): its text yields no chunks" in result.output
    assert "Traceback" not in result.output
    assert json.loads(cli("stats", "--json").stdout)["analyses"] == 0  # the good analysis was not written either

    result = cli("index-jsonl", str(papers), "--allow-low-coverage")
    assert result.exit_code == 0, result.output
    assert json.loads(cli("stats", "--json").stdout)["analyses"] == 2


def test_a_front_end_that_loses_text_is_caught_by_coverage(cli, tmp_path, monkeypatch):
    """The old bug, replayed: a front end that keeps only the first paragraph of a paper
    (as the LaTeX detector once did with Markdown holding \\begin{aligned}). Coverage
    sees the loss, names the document and writes nothing."""
    from ingest.chunk import from_text as chunking

    real = chunking._parse_markdown

    def lossy(text):
        parsed = real(text)
        parsed.paragraphs = parsed.paragraphs[:1]
        return parsed

    monkeypatch.setattr(chunking, "_parse_markdown", lossy)
    papers = write_jsonl(tmp_path / "papers.jsonl", [_analysis("MD-2", MARKDOWN_PAPER)])
    result = cli("index-jsonl", str(papers))
    assert result.exit_code == 2, result.output
    assert "analysis 'MD-2' document 'paper' v1 (markdown): only " in result.output
    assert "of its words reach a chunk (min_coverage 90%)" in result.output
    assert json.loads(cli("stats", "--json").stdout)["analyses"] == 0


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
