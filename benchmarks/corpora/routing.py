"""A routing set where every analysis has its full text: ``route-ft``.

Routing among abstracts alone flatters a router that reads only abstracts; routing by
full-text evidence is only fair when every distractor has full text too. The set:
the full LaTeX of ``papers`` LHCb papers (the 5 that the expert questions are about,
then the corpus in file order) and the 14 QASPER papers in plain text, all indexed
through the real intake. Queries are asked as users ask them, without naming the
paper: the QASPER questions and the LHCb expert questions. Many are generic ("What
baselines do they compare to?"); what a question shares with only its own paper's
text is what evidence routing can use and an abstract seldom has. Each is also asked
after its paper's title (``route-ft-named``), as a member who names the subject asks.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.corpora import BenchmarkSet
from benchmarks.corpora.lhcb import expert_questions, iter_papers
from benchmarks.corpora.qasper import qasper_set
from mitra.evaluation.retrieval import GoldQuery

DEFAULT_PAPERS = 60


def routing_full_text_set(root: Path, papers: int = DEFAULT_PAPERS) -> BenchmarkSet:
    questions = expert_questions(root)
    gold = {q.arxiv_id for q in questions}
    chosen = [p for p in iter_papers(root) if p.arxiv_id in gold]
    for paper in iter_papers(root):
        if len(chosen) >= papers:
            break
        if paper.arxiv_id not in gold:
            chosen.append(paper)
    qasper = qasper_set(root)
    titles = {p.arxiv_id: p.title for p in chosen}
    asked = [(f"lhcb-{i:02d}", q.question, f"LHCb-{q.arxiv_id}", titles[q.arxiv_id])
             for i, q in enumerate(questions, start=1)]
    qasper_titles = {r.analysis_id: r.title for r in qasper.records}
    asked += [(g.qid, g.query, g.analysis_id, qasper_titles[g.analysis_id]) for g in qasper.locked]
    # Each question twice: as asked (set "route-ft"), and after its paper's title (set
    # "route-ft-named"), as a member who names the subject asks; abstracts alone route
    # the second kind well, and evidence must not cost them that.
    routing = [GoldQuery(qid=f"route-{qid}", query=question, route_query=question, analysis_id=gold, set="route-ft")
               for qid, question, gold, _ in asked]
    routing += [GoldQuery(qid=f"route-named-{qid}", query=question, route_query=f"{title} {question}",
                          analysis_id=gold, set="route-ft-named") for qid, question, gold, title in asked]
    return BenchmarkSet(name="route-ft", records=[p.record(full_text=True) for p in chosen] + qasper.records,
                        routing=routing)
