"""The QASPER subset in ``../shared/data/qasper``: 14 NLP papers as plain text (section
names on their own lines, citations as BIBREFn) and 87 questions with evidence
paragraphs. The questions are generic ("How did they obtain the dataset?"): locked tier only.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.corpora import BenchmarkSet
from mitra.evaluation.retrieval import GoldQuery
from ingest.sources.jsonl import JsonlAnalysis, JsonlDocument
from mitra.core.text import split_sentences

_FILE = "data/qasper/qasper_dev_subset_with_fulltext_and_evidence.json"


def qasper_set(root: Path) -> BenchmarkSet:
    entries = json.loads((root / _FILE).read_text())
    records: dict[str, JsonlAnalysis] = {}
    gold: list[GoldQuery] = []
    for entry in entries:
        paper = entry["qasper_paper_id"]
        analysis_id = f"QASPER-{paper}"
        if analysis_id not in records:  # a few papers appear twice in the subset
            text = entry["full_text"]
            first_paragraph = next((line for line in text.splitlines() if len(line) > 200), "")
            records[analysis_id] = JsonlAnalysis(
                analysis_id=analysis_id,
                title=(split_sentences(first_paragraph) or [paper])[0][:160],
                abstract=first_paragraph,
                documents=[JsonlDocument(doc_id="paper", text=text)],
            )
        for qa in entry["qas"]:
            qid = f"qasper-{qa['question_id'][:10]}"
            if any(g.qid == qid for g in gold):
                continue
            gold.append(GoldQuery(qid=qid, query=qa["question"], analysis_id=analysis_id,
                                  evidence=qa["evidence"], set="qasper"))
    return BenchmarkSet(name="qasper", records=list(records.values()), locked=[g for g in gold if g.has_gold])
