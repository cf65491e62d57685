"""The brief (``mitra.brief``) on real papers: headline values against the frozen gold
(``benchmarks/corpora/brief_values.jsonl``), vocabulary against a hand-labelled sample
(``benchmarks/corpora/brief_vocabulary.jsonl``), and what a brief costs beside indexing.

    python benchmarks/briefs.py                 # index once into /tmp/mitra-briefs, then measure
    python benchmarks/briefs.py --only-index    # just the (cached) knowledge base

The 16 ATLAS/CMS PDFs are indexed with ``mitra ingest pdf`` (text layer), the 40 LHCb papers
with ``index-jsonl``; each analysis's indexing time is kept beside the cached knowledge base.
Prints JSON: recall of the gold values (a gold value is found when the brief shows the same
number), value plus qualifiers right among the values shown that the gold holds, vocabulary
precision and recall, build seconds per analysis and their share of its indexing time, each
with a 95% Wilson interval.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from decimal import Decimal
from pathlib import Path

from benchmarks.corpora.brief_gold import HEP, LHCB, hep_id, lhcb_records
from benchmarks.intervals import wilson

HERE = Path(__file__).parent
CACHE = Path("/tmp/mitra-briefs")
GOLD = HERE / "corpora/brief_values.jsonl"
VOCABULARY = HERE / "corpora/brief_vocabulary.jsonl"
# A class each side must agree on (an absent class reads as its default: observed, combined).
STRICT = ("measure", "limit", "significance")
NAMED = ("channel", "category", "mediator")
DEFAULT = {"measure": ["observed"]}


def _settings():
    os.environ.setdefault("MITRA_DATA_DIR", str(CACHE / "kb"))
    from mitra.core.settings import Settings

    return Settings()


def index(settings) -> dict[str, float]:
    """Index what is not indexed yet; each analysis's seconds, kept in the cache."""
    from benchmarks.corpora.lhcb import LHCbPaper
    from ingest.pipeline import ingest_files
    from ingest.sources.jsonl import index_records
    from mitra.core.types import Analysis
    from mitra.models.embedders import load_embedder
    from mitra.store.knowledge_base import KnowledgeBase

    times_file = CACHE / "index_seconds.json"
    times = json.loads(times_file.read_text()) if times_file.exists() else {}
    kb = KnowledgeBase(settings, load_embedder(settings))
    for path in sorted(HEP.glob("*.pdf")):
        analysis = hep_id(path)
        if analysis in times:
            continue
        start = time.perf_counter()
        ingest_files(kb, settings, [path], Analysis(id=analysis, title=analysis), allow_low_coverage=True)
        times[analysis] = time.perf_counter() - start
        times_file.write_text(json.dumps(times, indent=1))
    for record in lhcb_records():
        paper = LHCbPaper.model_validate(record)
        analysis = f"LHCb-{paper.arxiv_id}"
        if analysis in times:
            continue
        start = time.perf_counter()
        index_records(kb, [paper.record(full_text=True)], allow_low_coverage=True)
        times[analysis] = time.perf_counter() - start
        times_file.write_text(json.dumps(times, indent=1))
    return times


def _gold() -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for line in GOLD.read_text().splitlines():
        row = json.loads(line)
        out.setdefault(row["analysis"], []).append(row)
    return out


def _number(value: str, power) -> tuple[Decimal, int | None]:
    return Decimal(value).normalize(), power


def _qualifiers_right(shown: dict[str, list[str]], gold: dict[str, list[str]]) -> bool:
    for cls in STRICT:
        if set(shown.get(cls) or DEFAULT.get(cls, [])) != set(gold.get(cls) or DEFAULT.get(cls, [])):
            return False
    return all(not (shown.get(cls) and gold.get(cls)) or set(shown[cls]) & set(gold[cls]) for cls in NAMED)


def measure_values(briefs: dict, gold: dict[str, list[dict]]) -> dict:
    from mitra.brief.values import number_of

    found = total = right = judged = 0
    misses, wrong, unjudged = [], [], []
    for analysis in sorted(set(gold) | set(briefs)):
        rows, brief = gold.get(analysis, []), briefs.get(analysis)
        shown = [(number_of(v), v) for v in brief.values] if brief else []
        for row in {(r["value"], r["power"]): r for r in rows}.values():
            total += 1
            if any(n == _number(row["value"], row["power"]) for n, _ in shown):
                found += 1
            else:
                misses.append(f"{analysis}: {row['written']} ({row['where']})")
        for n, value in shown:
            match = [r for r in rows if _number(r["value"], r["power"]) == n]
            if not match:
                unjudged.append(f"{analysis}: {value.written} [{value.label}] in “{value.sentence[:160]}”")
                continue
            judged += 1
            if any(_qualifiers_right(value.qualifiers, r["qualifiers"]) for r in match):
                right += 1
            else:
                wrong.append(f"{analysis}: {value.written} [{value.label}] gold {match[0]['qualifiers']}")
    return {"recall": wilson(found, total), "found": found, "gold": total,
            "qualifiers_right": wilson(right, judged), "right": right, "judged": judged,
            "shown": sum(len(b.values) for b in briefs.values()), "misses": misses[:40], "wrong": wrong[:40],
            "not_in_gold": unjudged}


def measure_vocabulary(briefs: dict) -> dict | None:
    if not VOCABULARY.exists():
        return None
    labelled = [json.loads(line) for line in VOCABULARY.read_text().splitlines()]
    good = {(r["analysis"], r["short"]): r for r in labelled if r["correct"]}
    sample = {r["analysis"] for r in labelled}
    shown = [(a, t) for a in sample for t in (briefs[a].vocabulary if a in briefs else [])]
    correct = sum(1 for a, t in shown if (a, t.short) in good and good[(a, t.short)]["long"].lower() == t.long.lower())
    judged_bad = {(r["analysis"], r["short"]) for r in labelled if not r["correct"]}
    expected = [k for k in good if k[0] in sample]
    recalled = sum(1 for a, s in expected if any(t.short == s for t in (briefs[a].vocabulary if a in briefs else [])))
    return {"precision": wilson(correct, len(shown)), "shown": len(shown), "correct": correct,
            "labelled_wrong_shown": sum(1 for a, t in shown if (a, t.short) in judged_bad),
            "recall": wilson(recalled, len(expected)), "recalled": recalled, "expected": len(expected)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only-index", action="store_true")
    args = parser.parse_args()
    settings = _settings()
    times = index(settings)
    if args.only_index:
        print(json.dumps({"indexed": len(times)}))
        return
    from mitra.brief.build import build_brief
    from mitra.store.knowledge_base import KnowledgeBase

    kb = KnowledgeBase(settings)
    briefs, seconds, shares = {}, [], []
    for analysis in sorted(times):
        start = time.perf_counter()
        briefs[analysis] = build_brief(kb, analysis)
        took = time.perf_counter() - start
        seconds.append(took)
        shares.append(took / times[analysis])
    seconds.sort()
    report = {
        "analyses": len(briefs),
        "values": measure_values(briefs, _gold()),
        "vocabulary": measure_vocabulary(briefs),
        "build_seconds": {"median": seconds[len(seconds) // 2], "p90": seconds[int(len(seconds) * 0.9)],
                          "max": seconds[-1], "total": sum(seconds)},
        "share_of_indexing": {"total": sum(seconds) / sum(times[a] for a in briefs),
                              "max": max(shares), "median": sorted(shares)[len(shares) // 2]},
    }
    print(json.dumps(report, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
