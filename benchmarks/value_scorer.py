"""A learned value scorer, tried on 2 cores (issue 46): MiniLM reading the question beside each
candidate value's sentence (the value marked), trained on value questions built mechanically
from the LHCb papers of no benchmark set, and scored on the frozen value questions.

1. ``prepare`` builds the training groups. Each paper's abstract sentences and body sentences
   that state one result, the result masked ("… is measured to be [?]"), are asked of the
   paper's other passages (BM25's top 20, the sentence's own passage left out); the groups are
   the real ranking's candidates (``candidates``), the right ones those with the masked value,
   the abstract sentence restated left out (token overlap over 0.6). Six body sentences a
   paper at most, and only a value that two or three passages state.
2. ``candidates`` writes the benchmark questions' candidates as the ranking sees them (the
   ``value_ranking.py`` knowledge bases).
3. ``train`` fine-tunes MiniLM with a linear head on the candidate groups (softmax over a
   group's top ``--k``), as a residual over the hand score (``score + head``) or ``--standalone``,
   and reports the value first and in the top four on development and held out, before and
   after each epoch. ``--folds`` trains on the development questions of one half of their
   papers and scores the other half.

    python benchmarks/value_scorer.py prepare --out mech.json [--papers N]
    python benchmarks/value_scorer.py candidates --sets lhcb,fresh,fresh2,fresh3,fresh8,fresh4,fresh5,fresh6,fresh7 \
        --work-dir DIR --out bench.json
    python benchmarks/value_scorer.py train --train mech.json --eval bench.json [--standalone] [--epochs 1]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import time
from pathlib import Path

PER_PAPER = 6
RESTATED = 0.6
# after a masked value: its closing bracket and power of ten ("…) × 10^{-5}")
_TAIL = re.compile(r"^\s*\)?\s*(?:[×x]\s*10\s*\^?\s*\{?\s*[−-]?\s*\d+\s*\}?)?\s*\)?")


def _marked(m) -> str:
    s = m.sentence
    return s[:m.span[0]] + "[[" + s[m.span[0]:m.span[1]] + "]]" + s[m.span[1]:]


def _row(c, right: bool) -> dict:
    return {"text": _marked(c.mention), "heading": c.hit.chunk.section_path, "column": c.mention.column,
            "label": c.label, "score": c.score, "rank": c.rank, "right": right}


def _masked(sentence: str, mentions) -> str | None:
    """The sentence with its one result (and its uncertainties) as "[?]"; None unless it states one."""
    stated = [m for m in mentions if not m.condition]
    results = [m for m in stated if not m.spread]
    if len(results) != 1 or results[0].value == 0:
        return None
    start, end = min(m.span[0] for m in stated), max(m.span[1] for m in stated)
    end += _TAIL.match(sentence[end:]).end()
    while start > 0 and sentence[start - 1] in "( ":
        start -= 1
    return (sentence[:start] + " [?]" + sentence[end:]).strip()


def prepare(out: Path, limit: int | None = None) -> dict:
    import bm25s

    from benchmarks.corpora import shared_dir
    from benchmarks.corpora.latex_markdown import latex_to_markdown
    from benchmarks.corpora.lhcb import expert_questions, iter_papers
    from benchmarks.corpora.long import long_lhcb_papers
    from benchmarks.corpora.value_questions import FRESH_SETS, load_value_questions
    from benchmarks.value_ranking import holds
    from ingest.chunk.from_text import chunk_text
    from mitra.answer.asked import Asked
    from mitra.answer.candidates import candidates, is_reference
    from mitra.answer.quantities import mentions
    from mitra.core.text import math_to_words, split_sentences, tokenize
    from mitra.core.types import Document, Hit

    root = shared_dir()
    frozen = [*load_value_questions(), *(q for path in FRESH_SETS.values() for q in load_value_questions(path))]
    used = ({q.source.removeprefix("lhcb:") for q in frozen} | {p.arxiv_id for p in long_lhcb_papers(root)}
            | {q.arxiv_id for q in expert_questions(root)})
    groups, papers = [], 0
    for n, paper in enumerate(iter_papers(root)):
        if paper.arxiv_id in used:
            continue
        if papers == limit:
            break
        converter = bool(n % 2)
        text = latex_to_markdown(paper.text, converter=converter, title=paper.title, dense=converter)
        chunks = chunk_text(Document(analysis_id=f"LHCb-{paper.arxiv_id}", doc_id="paper"), text, 200, 1200).chunks
        if len(chunks) < 8:
            continue
        papers += 1
        asked_of = []  # (sentence, masked, value, its own passage or None)
        for s in split_sentences(math_to_words(paper.abstract)):
            found = mentions(s)
            if (masked := _masked(s, found)) is not None:
                asked_of.append((s, masked, next(m for m in found if not m.condition and not m.spread), None))
        body = []
        for i, chunk in enumerate(chunks):
            for s in split_sentences(math_to_words(chunk.text)):
                found = mentions(s)
                results = [m for m in found if not m.condition and not m.spread]
                if (len(results) == 1 and not is_reference(results[0]) and len(results[0].value.as_tuple().digits) > 1
                        and not 1900 < results[0].value < 2100 and (masked := _masked(s, found)) is not None):
                    body.append((s, masked, results[0], i))
        stated_in = {}
        for _, _, m, i in body:
            stated_in.setdefault(m.value, set()).add(i)
        restated = [b for b in body if 2 <= len(stated_in[b[2].value]) <= 3]
        random.Random(paper.arxiv_id).shuffle(restated)
        bm25 = bm25s.BM25()
        bm25.index([tokenize(c.index_text) for c in chunks], show_progress=False)
        for sentence, masked, m, own in [*asked_of, *restated[:PER_PAPER]]:
            question = f"What value is stated in: {masked}"
            found, scores = bm25.retrieve([tokenize(masked) or ["x"]], k=min(21, len(chunks)), show_progress=False)
            hits = [Hit(chunk=chunks[d], rank=r, scores={"bm25": float(x)})
                    for r, (d, x) in enumerate(zip(found[0], scores[0])) if d != own]
            words = set(tokenize(sentence))
            rows = []
            for c in candidates(Asked.read(question, title=paper.title), hits):
                theirs = set(tokenize(c.mention.sentence))
                if words and len(theirs & words) / len(theirs | words) <= RESTATED:
                    rows.append(_row(c, holds(c, m.value.copy_abs())))
            if any(r["right"] for r in rows) and len(rows) > 1:
                groups.append({"id": f"{paper.arxiv_id}-{len(groups)}", "set": "abstract" if own is None else "body",
                               "paper": paper.arxiv_id, "question": question, "shown": True, "cands": rows[:24]})
    out.write_text(json.dumps(groups))
    return {"papers": papers, "groups": len(groups), "left_out_papers": len(used)}


def bench_candidates(sets: list[str], work_dir: Path, out: Path) -> dict:
    from benchmarks.answer_quality import with_settings
    from benchmarks.answer_values import analysis_id, bench_of, questions_of
    from benchmarks.corpora import shared_dir
    from benchmarks.corpora.value_questions import states, value_of
    from benchmarks.retrieval_quality import build
    from benchmarks.value_ranking import holds
    from mitra.answer.answerer import Answerer
    from mitra.answer.candidates import candidates
    from mitra.answer.record import Timings

    root = shared_dir()
    questions, rows = questions_of(sets, root, None), []
    for name in sets:
        asked_qs = [q for q in questions if q.set == name]
        bench = bench_of(name, root, asked_qs)
        pipeline, _, _ = build(bench, work_dir / f"{name}-{len(bench.records)}", True, {"reranker": "none"})
        pipeline = with_settings(pipeline, {"switch_margin": None, "final_k": 5})
        answerer = Answerer(pipeline.retriever, None, None, pipeline.settings)
        for q in asked_qs:
            asked, result, shown, _ = answerer.retrieve(pipeline.kb.get_analysis(analysis_id(q)), q.question, Timings())
            trusted = [h for h in result.hits if answerer.trusted(h)]
            value = value_of(q.value).copy_abs()
            rows.append({"id": q.id, "set": name, "paper": q.source, "question": q.question,
                         "shown": any(states(h.chunk.text, q.value, q.unit) for h in shown),
                         "cands": [_row(c, holds(c, value))
                                   for c in candidates(asked, trusted[:pipeline.settings.value_passages])[:24]]})
    out.write_text(json.dumps(rows))
    return {"questions": len(rows)}


def train(args) -> None:
    import numpy as np
    import torch
    from transformers import AutoModel, AutoTokenizer

    from benchmarks.corpora.value_questions import HELD_OUT
    from mitra.models.embedders import resolve_model_path

    torch.manual_seed(0)
    random.seed(0)
    torch.set_num_threads(2)
    rows = [r for f in args.train for r in json.loads(Path(f).read_text()) if r["set"] not in HELD_OUT]
    scored = [r for f in args.eval for r in json.loads(Path(f).read_text())]
    if args.fold is not None:  # development only, by paper halves
        half = lambda r: int(hashlib.sha1(r["paper"].encode()).hexdigest(), 16) % 2  # noqa: E731
        rows = [r for r in rows if half(r) != args.fold]
        scored = [r for r in scored if r["set"] not in HELD_OUT and half(r) == args.fold]
    path = resolve_model_path("all-minilm-l6-v2")
    tokenizer, encoder = AutoTokenizer.from_pretrained(path), AutoModel.from_pretrained(path)
    head = torch.nn.Linear(encoder.config.hidden_size, 1)
    torch.nn.init.zeros_(head.weight)
    torch.nn.init.zeros_(head.bias)

    def scores(row: dict) -> torch.Tensor:
        group = row["cands"][:args.k]
        batch = tokenizer([row["question"]] * len(group),
                          [f"{c['heading']} | {c['label']} | {c['column']} | {c['text']}" for c in group],
                          truncation="longest_first", max_length=args.max_length, padding=True, return_tensors="pt")
        mask = batch["attention_mask"].unsqueeze(-1).float()
        pooled = (encoder(**batch).last_hidden_state * mask).sum(1) / mask.sum(1)
        own = head(pooled).squeeze(-1)
        return own if args.standalone else torch.tensor([c["score"] for c in group]) + own

    def evaluate() -> dict:
        encoder.eval()
        out: dict = {}
        with torch.no_grad():
            for row in (r for r in scored if r["shown"]):
                right = [c["right"] for c in row["cands"]]
                hand = right.index(True) if True in right else None
                new = hand
                if hand is not None and hand < args.k:
                    order = np.argsort(-scores(row).numpy(), kind="stable")
                    new = [right[i] for i in order].index(True)
                split = out.setdefault("held out" if row["set"] in HELD_OUT else "development",
                                       {"n": 0, "first": [0, 0], "top four": [0, 0]})
                split["n"] += 1
                for key, limit in (("first", 1), ("top four", 4)):
                    split[key][0] += hand is not None and hand < limit
                    split[key][1] += new is not None and new < limit
        encoder.train()
        return out  # each count: [hand weights, learned]

    groups = [r for r in rows if any(c["right"] for c in r["cands"][:args.k]) and len(r["cands"]) > 1]
    optimizer = torch.optim.AdamW([{"params": encoder.parameters(), "lr": args.lr},
                                   {"params": head.parameters(), "lr": args.head_lr}], weight_decay=0.01)
    print(json.dumps({"training groups": len(groups), "before": evaluate()}), flush=True)
    for epoch in range(args.epochs):
        random.shuffle(groups)
        start, total = time.time(), 0.0
        for i, row in enumerate(groups):
            s = scores(row)
            right = torch.tensor([c["right"] for c in row["cands"][:args.k]])
            loss = torch.logsumexp(s, 0) - torch.logsumexp(s[right], 0)
            loss.backward()
            total += loss.item()
            if i % 4 == 3:
                optimizer.step()
                optimizer.zero_grad()
        print(json.dumps({"epoch": epoch, "loss": round(total / len(groups), 3),
                          "seconds": round(time.time() - start), "scored": evaluate()}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--papers", type=int)
    c = sub.add_parser("candidates")
    c.add_argument("--sets", default="lhcb,fresh,fresh2,fresh3,fresh8,fresh4,fresh5,fresh6,fresh7")
    c.add_argument("--work-dir", type=Path, required=True)
    c.add_argument("--out", type=Path, required=True)
    t = sub.add_parser("train")
    t.add_argument("--train", nargs="+", required=True)
    t.add_argument("--eval", nargs="+", required=True)
    t.add_argument("--fold", type=int, choices=(0, 1))
    t.add_argument("--standalone", action="store_true")
    t.add_argument("--k", type=int, default=12)
    t.add_argument("--epochs", type=int, default=1)
    t.add_argument("--lr", type=float, default=3e-5)
    t.add_argument("--head-lr", type=float, default=1e-3)
    t.add_argument("--max-length", type=int, default=128)
    args = parser.parse_args()
    if args.command == "prepare":
        print(json.dumps(prepare(args.out, args.papers)))
    elif args.command == "candidates":
        print(json.dumps(bench_candidates(args.sets.split(","), args.work_dir, args.out)))
    else:
        train(args)


if __name__ == "__main__":
    main()
