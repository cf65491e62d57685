"""The 361 LHC analysis descriptions in ``../shared/data/rivet`` as a routing set: each
analysis is indexed under its Rivet name with its description as the abstract, and
routed to from its title ("summary"), as a user names the analysis they mean. Many
are near twins (the same measurement by ATLAS and CMS, or at two energies).
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.corpora import BenchmarkSet
from mitra.evaluation.retrieval import GoldQuery
from ingest.sources.jsonl import JsonlAnalysis
from mitra.core.text import clean_latex


def rivet_set(root: Path) -> BenchmarkSet:
    entries = json.loads((root / "data/rivet/rivet_lhc_analyses.json").read_text())
    records, routing = [], []
    for entry in entries:
        description = clean_latex(entry.get("description") or "")
        summary = clean_latex(entry.get("summary") or "")
        if not description or not summary:
            continue
        name = entry["rivet_name"]
        records.append(JsonlAnalysis(analysis_id=name, title=name, abstract=description,
                                     experiment=entry.get("experiment")))
        routing.append(GoldQuery(qid=f"rivet-{name}", query=summary, route_query=summary, analysis_id=name, set="rivet"))
    return BenchmarkSet(name="rivet", records=records, routing=routing)
