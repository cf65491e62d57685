"""The beyond-one-passage questions' gold facts hold in their papers (needs ../shared/data;
reads the 780 LHCb texts, a few seconds)."""

import pytest

from benchmarks.answer_quality import facts_present
from benchmarks.corpora.beyond_questions import ACROSS, COMPARE, MULTIPART, arxiv_ids, beyond_set
from benchmarks.corpora.lhcb import iter_papers
from mitra.core.text import clean_latex, tokenize


@pytest.fixture(scope="module")
def texts(shared_root) -> dict[str, str]:
    return {p.arxiv_id: clean_latex(p.text) for p in iter_papers(shared_root)}


def facts_by_paper() -> list[tuple[str, str, tuple[str, ...]]]:
    """(where, arxiv id, facts) for every part and every analysis of every question."""
    out = [(f"{q.arxiv_id} part {i}", q.arxiv_id, part.facts)
           for q in MULTIPART for i, part in enumerate(q.parts, start=1) if part.answerable]
    out += [(f"{kind} '{q.question[:40]}'", a, facts)
            for kind, questions in (("across", ACROSS), ("compare", COMPARE)) for q in questions
            for a, facts in q.facts.items()]
    return out


def test_every_fact_is_in_its_papers_text(texts):
    missing = [(where, fact) for where, arxiv, facts in facts_by_paper() for fact in facts
               if facts_present(texts[arxiv], [fact]) != 1.0]
    assert missing == []


def test_every_paper_exists_and_every_part_or_analysis_has_facts_unless_flagged(texts):
    assert set(arxiv_ids()) <= set(texts)
    assert all(facts for _, _, facts in facts_by_paper())
    unanswerable = [p for q in MULTIPART for p in q.parts if not p.answerable]
    assert len(unanswerable) == 3 and all(p.absent for p in unanswerable)
    assert all(len(q.facts) == 2 for q in COMPARE) and all(2 <= len(q.facts) <= 3 for q in ACROSS)


def test_an_unanswerable_part_asks_what_its_paper_never_mentions(texts):
    for q in MULTIPART:
        words = set(tokenize(texts[q.arxiv_id]))
        for part in q.parts:
            assert not part.answerable or not part.absent
            assert not any(set(tokenize(w)) <= words for w in part.absent), (q.arxiv_id, part.question)


def test_the_knowledge_base_holds_every_paper_in_full_and_distractors_as_abstracts(shared_root):
    bench = beyond_set(shared_root, distractors=50)
    full = {r.analysis_id for r in bench.records if r.documents}
    assert full == {f"LHCb-{a}" for a in arxiv_ids()}
    assert len(bench.records) == len(full) + 50
