"""An encoder and a reranker trained on a GPU host from the packaged MiniLM, on the
collaboration's other papers, and what each gives on the public sets.

``mitra adapt`` trains on 2 cores within minutes, which proved too little to pay
(docs/benchmarks.md). This asks what a GPU's budget buys instead, on text nobody
tuned on: the training papers are the LHCb papers of no benchmark set (the 12 long
ones and the 5 with expert questions left out), so the long set's LHCb papers, its
ATLAS/CMS PDFs and QASPER are all unseen.

1. ``prepare`` (here, CPU): each training paper rendered as the lhcb-md and long sets
   render theirs (alternately), chunked by the real chunker; pseudo-queries from
   ``mitra.adapt.pseudo_queries`` (headings, captions, distinctive sentences, the sentence
   hidden from its passage); hard negatives: BM25's best other passages of the same paper.
2. ``train encoder|reranker`` (a CUDA host; needs only torch, transformers and
   sentence-transformers, which a GPU image has): the bi-encoder with in-batch and hard
   negatives (multiple-negatives ranking loss), or a cross-encoder (MiniLM with a new
   head) on groups of the positive and three negatives (softmax cross-entropy); checkpoints
   scored on the held-out papers' queries (one paper in 20), the best kept.
3. Score it with the real intake and retrieval, ``MITRA_EMBEDDER_MODEL=DIR`` (re-indexes)
   or ``MITRA_RERANKER=DIR`` (the ``rerank`` system over the fused top 20).

    python benchmarks/trained_models.py prepare --out DATA [--papers N]
    python benchmarks/trained_models.py train encoder --data DATA --out MODEL [--seconds 330]
    python benchmarks/trained_models.py train reranker --data DATA --out MODEL [--seconds 290]
    MITRA_EMBEDDER_MODEL=MODEL python benchmarks/retrieval_quality.py --sets long,lhcb,qasper \
        --systems bm25,dense,hybrid
    MITRA_RERANKER=MODEL python benchmarks/retrieval_quality.py --sets long,lhcb,qasper \
        --systems bm25,hybrid,rerank

``--base`` is the packaged MiniLM's directory by default; on a host without mitra's
venv, copy it there and pass its path.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import lzma
import random
import time
from pathlib import Path

GROUP = 4  # a reranker query's group: its positive, then hard negatives, then random passages
HELDOUT = 20  # one training paper in this many is held out to choose the checkpoint


def held_out(paper: str) -> bool:
    return int(hashlib.sha1(paper.encode()).hexdigest(), 16) % HELDOUT == 0


# ------------------------------------------------------------------ prepare (CPU)
def prepare(root: Path, out: Path, limit: int | None = None) -> dict:
    import bm25s

    from benchmarks.corpora.latex_markdown import latex_to_markdown
    from benchmarks.corpora.lhcb import expert_questions, iter_papers
    from benchmarks.corpora.long import long_lhcb_papers
    from ingest.chunk.from_text import chunk_text
    from mitra.adapt.pseudo_queries import heading_queries, passage_for, sentence_queries
    from mitra.core.text import spelled_out, tokenize
    from mitra.core.types import Document

    in_sets = {p.arxiv_id for p in long_lhcb_papers(root)} | {q.arxiv_id for q in expert_questions(root)}
    rng = random.Random(7)
    rows, texts, papers = [], {}, 0
    for n, paper in enumerate(iter_papers(root)):
        if paper.arxiv_id in in_sets:
            continue
        if limit is not None and papers == limit:
            break
        converter = bool(n % 2)  # half as the long set renders papers, half as lhcb-md
        text = latex_to_markdown(paper.text, converter=converter, title=paper.title, dense=converter)
        chunks = chunk_text(Document(analysis_id=f"LHCb-{paper.arxiv_id}", doc_id="paper"), text, 200, 1200).chunks
        if len(chunks) < 8:
            continue
        papers += 1
        by_id = {c.id: c for c in chunks}
        ids = [c.id for c in chunks]
        bm25 = bm25s.BM25()
        bm25.index([tokenize(c.index_text) for c in chunks], show_progress=False)
        for query in [*heading_queries(chunks), *sentence_queries(chunks, 3 * len(chunks), rng)]:
            terms = set(tokenize(query.query))
            found, _ = bm25.retrieve([tokenize(query.query) or ["x"]], k=min(6, len(chunks)), show_progress=False)
            negatives = [ids[d] for d in found[0] if ids[d] != query.chunk_id][:GROUP - 1]
            if not negatives:
                continue
            chunk, negative = by_id[query.chunk_id], by_id[rng.choice(negatives)]
            positive = passage_for(query, chunk)
            rows.append({
                "paper": paper.arxiv_id, "kind": query.kind,
                "query": query.query, "encoder_query": spelled_out(query.query),
                "positive": positive,
                "positive_window": _window(positive, bool(chunk.section) and not query.strip_section, terms),
                "negative_window": _window(negative.index_text, bool(negative.section), terms),
                "negatives": [texts.setdefault(by_id[i].index_text, len(texts)) for i in negatives],
            })
    out.mkdir(parents=True, exist_ok=True)
    with lzma.open(out / "queries.json.xz", "wt") as handle:
        json.dump({"rows": rows, "texts": sorted(texts, key=texts.get)}, handle)
    return {"papers": papers, "queries": len(rows), "left_out_papers": len(in_sets),
            "kinds": {k: sum(r["kind"] == k for r in rows) for k in ("heading", "caption", "statement")}}


def _window(passage: str, headed: bool, terms: set[str]) -> str:
    """The encoder embeds sentence windows (``dense_window_words``): the passage's window
    sharing most of the query's terms, under the passage's section path."""
    from mitra.core.text import sentence_windows, tokenize

    head, _, body = passage.partition("\n") if headed else ("", "", passage)
    best = max(sentence_windows(body, 60) or [body], key=lambda run: len(terms & set(tokenize(run))))
    return f"{head}\n{best}" if head else best


# ------------------------------------------------------------------ train (GPU)
def _load(data: Path) -> tuple[list[dict], list[dict]]:
    with lzma.open(data / "queries.json.xz", "rt") as handle:
        loaded = json.load(handle)
    rows = [{**r, "negatives": [loaded["texts"][i] for i in r["negatives"]]} for r in loaded["rows"]]
    train, heldout = [r for r in rows if not held_out(r["paper"])], [r for r in rows if held_out(r["paper"])][:3000]
    if not train or not heldout:
        raise SystemExit(f"{data}: {len(train)} training and {len(heldout)} held-out queries; both are needed "
                         f"(one paper in {HELDOUT} is held out): prepare more papers")
    return train, heldout


class _Trainer:
    """The loop both models share: linear warm-up and decay, a time budget, the best
    checkpoint by held-out MRR kept. Not ``mitra adapt``'s sentence-transformers trainer:
    that needs ``datasets``, which a GPU image need not have."""

    def __init__(self, model, batch: int, epochs: int, train: list[dict], seconds: float, learning_rate: float):
        import torch

        self.model, self.batch, self.epochs, self.train, self.seconds = model, batch, epochs, train, seconds
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.01)
        steps = epochs * (len(train) // batch)
        warm = max(1, steps // 10)
        self.schedule = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda s: (s + 1) / warm if s < warm else max(0.0, (steps - s) / max(1, steps - warm)))

    def run(self, loss, validate, save) -> dict:
        import torch

        started, rng, step, history, saved, late = time.monotonic(), random.Random(1), 0, [], False, False

        @torch.no_grad()
        def heldout_mrr() -> float:
            self.model.eval()
            score = validate()
            self.model.train()
            return score

        best = heldout_mrr()
        history.append({"step": 0, "heldout_mrr": round(best, 4)})

        def check() -> None:
            nonlocal best, saved
            score = heldout_mrr()
            history.append({"step": step, "heldout_mrr": round(score, 4)})
            print(history[-1], flush=True)
            if score > best:
                best, saved = score, True
                save()

        for _ in range(self.epochs):
            rng.shuffle(self.train)
            for start in range(0, len(self.train) - self.batch + 1, self.batch):
                loss(self.train[start : start + self.batch], rng).backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
                self.optimizer.step(), self.schedule.step(), self.optimizer.zero_grad()
                step += 1
                late = time.monotonic() - started > self.seconds
                if step % 1000 == 0 or late:
                    check()
                if late:
                    break
            if late:
                break
        if history[-1]["step"] != step:
            check()
        # Nothing is written where no checkpoint beat the base model on the held-out papers.
        return {"steps": step, "seconds": round(time.monotonic() - started), "saved": saved, "history": history}


def train_encoder(base: str, data: Path, out: Path, seconds: float, device: str, batch: int) -> dict:
    import torch
    import torch.nn.functional as F
    from sentence_transformers import SentenceTransformer

    train, heldout = _load(data)
    model = SentenceTransformer(base, device=device).float()
    model.max_seq_length = 256

    def encode(texts: list[str]):
        features = {k: (v.to(device) if hasattr(v, "to") else v) for k, v in model.preprocess(texts).items()}
        return F.normalize(model(features)["sentence_embedding"], dim=-1).float()

    def scores(rows: list[dict]):
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=device.startswith("cuda")):
            questions = encode([r["encoder_query"] for r in rows])
            passages = encode([r["positive_window"] for r in rows] + [r["negative_window"] for r in rows])
        return questions @ passages.T  # each query's positive at its own index; the rest negatives

    def loss(rows, rng):
        return F.cross_entropy(20.0 * scores(rows), torch.arange(len(rows), device=device))

    def validate() -> float:
        ranks = []
        size = min(256, len(heldout))  # the other queries' passages are a query's negatives
        for start in range(0, len(heldout) - size + 1, size):
            s = scores(heldout[start : start + size])
            ranks += ((s > s.diagonal()[:, None]).sum(1) + 1).tolist()
        return sum(1 / r for r in ranks) / len(ranks)

    return _Trainer(model, batch, 3, train, seconds, 3e-5).run(loss, validate, lambda: model.save(str(out)))


def train_reranker(base: str, data: Path, out: Path, seconds: float, device: str, batch: int) -> dict:
    import torch
    import torch.nn.functional as F
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    train, heldout = _load(data)
    tokenizer = AutoTokenizer.from_pretrained(base)
    model = AutoModelForSequenceClassification.from_pretrained(base, num_labels=1).float().to(device)

    def logits(rows: list[dict], rng: random.Random, pool: list[dict]):
        """Each row's group scored; a group short of hard negatives is filled with other
        queries' positives from ``pool``."""
        questions, passages = [], []
        for row in rows:
            group = [row["positive"], *row["negatives"][: GROUP - 1]]
            while len(group) < GROUP:
                other = rng.choice(pool)
                if other is not row:
                    group.append(other["positive"])
            questions += [row["query"]] * GROUP
            passages += group
        features = tokenizer(questions, passages, truncation="only_second", max_length=256, padding=True,
                             return_tensors="pt").to(device)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=device.startswith("cuda")):
            return model(**features).logits.float().view(-1, GROUP)

    def loss(rows, rng):
        return F.cross_entropy(logits(rows, rng, train), torch.zeros(len(rows), dtype=torch.long, device=device))

    def validate() -> float:
        rng, ranks = random.Random(0), []
        for start in range(0, len(heldout), 64):
            s = logits(heldout[start : start + 64], rng, heldout)
            ranks += ((s > s[:, :1]).sum(1) + 1).tolist()
        return sum(1 / r for r in ranks) / len(ranks)

    def save():
        model.save_pretrained(str(out))
        tokenizer.save_pretrained(str(out))

    return _Trainer(model, batch, 3, train, seconds, 4e-5).run(loss, validate, save)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    made = commands.add_parser("prepare")
    made.add_argument("--shared", type=Path, default=Path("../shared"))
    made.add_argument("--out", type=Path, required=True)
    made.add_argument("--papers", type=int, default=None, help="at most this many training papers (a smoke test)")
    trained = commands.add_parser("train")
    trained.add_argument("model", choices=("encoder", "reranker"))
    trained.add_argument("--data", type=Path, required=True)
    trained.add_argument("--out", type=Path, required=True)
    trained.add_argument("--base", default="")
    trained.add_argument("--seconds", type=float, default=300.0)
    trained.add_argument("--device", default="cuda")
    trained.add_argument("--batch", type=int, default=0, help="queries a step (default: 128 encoder, 32 reranker)")
    args = parser.parse_args()
    if args.command == "prepare":
        print(json.dumps(prepare(args.shared, args.out, args.papers), indent=2))
        return
    if not args.base:
        from mitra.models.embedders import resolve_model_path

        args.base = resolve_model_path("all-minilm-l6-v2")
    train_model = train_encoder if args.model == "encoder" else train_reranker
    batch = args.batch or (128 if args.model == "encoder" else 32)
    report = train_model(args.base, args.data, args.out, args.seconds, args.device, batch)
    print(json.dumps({"model": args.model, "out": str(args.out), **report}, indent=2))


if __name__ == "__main__":
    main()
