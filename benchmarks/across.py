"""``mitra ask --across``: which analyses join, and what their prompts cost. JSON on stdout.

* ``share``: on the Rivet routing set (361 LHC analysis descriptions, each routed to from
  its title; many are ATLAS/CMS or two-energy twins), for each ``across_score_share``,
  how often the right analysis stays among the chosen (of the questions where it routes in
  the top ``across_k``, and of those where it routes 2nd or 3rd), and how many analyses a
  question draws on.
* ``prompt``: on the ORION demo corpus, for generic questions, the analyses chosen and the
  passages and estimated tokens of each one's locked prompt (across answers analysis by
  analysis, each in its own lock). The model reads a prompt before its first word (~55
  tokens/s on 2 cores), so the first analysis's tokens are the wait for the first line.

    python benchmarks/across.py [--only share|prompt]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from benchmarks.corpora import shared_dir
from benchmarks.corpora.rivet import rivet_set
from demo.records import demo_records
from ingest.sources.jsonl import index_records
from mitra.answer.across import choose
from mitra.answer.prompts import build_answer_prompt
from mitra.core.settings import Settings
from mitra.retrieval.pipeline import build_pipeline

SHARES = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
QUESTIONS = ["What is the dominant systematic uncertainty?", "How is the muon momentum scale calibrated?",
             "What integrated luminosity is used?", "Which background is estimated from control regions?",
             "What is the observed significance?"]


def share_sweep(data_dir: Path) -> dict:
    bench = rivet_set(shared_dir())
    pipeline = build_pipeline(Settings(_env_file=None, data_dir=data_dir, reranker="none"), with_reranker=False)
    index_records(pipeline.kb, bench.records)
    k = pipeline.settings.across_k
    rows = []  # (the gold's rank in the top k or None, each candidate's score as a share of the first's)
    for gold in bench.routing:
        routed = pipeline.router.route(gold.route_query, top_n=k).candidates
        ids = [c.analysis.id for c in routed]
        rows.append((ids.index(gold.analysis_id) if gold.analysis_id in ids else None,
                     [c.score / routed[0].score for c in routed]))
    found = [(rank, shares) for rank, shares in rows if rank is not None]
    behind = [(rank, shares) for rank, shares in found if rank > 0]
    return {"questions": len(rows), "gold_in_top_k": len(found), "gold_2nd_or_later": len(behind), "k": k,
            "by_share": {str(share): {
                "gold_kept": round(sum(s[r] >= share for r, s in found) / len(found), 3),
                "gold_kept_when_2nd_or_later": round(sum(s[r] >= share for r, s in behind) / len(behind), 3),
                "analyses_per_question": round(sum(sum(x >= share for x in s) for _, s in rows) / len(rows), 2),
            } for share in SHARES}}


def prompt_sizes(data_dir: Path) -> list[dict]:
    pipeline = build_pipeline(Settings(_env_file=None, data_dir=data_dir, reranker="none"), with_reranker=False)
    index_records(pipeline.kb, demo_records())
    s = pipeline.settings
    out = []
    for question in QUESTIONS:
        routed = choose(pipeline.router.route(question, top_n=s.across_k).candidates, s.across_k, s.across_score_share)
        hits = [pipeline.retriever.search(c.analysis.id, question).hits for c in routed]
        prompts = [build_answer_prompt(c.analysis, question, h, [], s) for c, h in zip(routed, hits)]
        out.append({"question": question, "analyses": {c.analysis.id: round(c.score, 2) for c in routed},
                    "locked": [{"passages": len(p.passages), "tokens": p.estimated_tokens} for p in prompts],
                    "first_line_tokens": prompts[0].estimated_tokens,
                    "all_tokens": sum(p.estimated_tokens for p in prompts)})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=("share", "prompt"))
    args = parser.parse_args()
    report = {}
    with tempfile.TemporaryDirectory() as tmp:
        if args.only in (None, "prompt"):
            report["prompt"] = prompt_sizes(Path(tmp) / "demo")
        if args.only in (None, "share"):
            if shared_dir() is None:
                raise SystemExit("../shared/data is absent (set MITRA_SHARED_DIR): the share sweep needs the Rivet set")
            report["share"] = share_sweep(Path(tmp) / "rivet")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
