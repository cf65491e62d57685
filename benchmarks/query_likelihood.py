"""A reranker that needs no trained weights: the packaged small LLM's likelihood of the
question given each passage (query likelihood, as UPR, Sachan et al. 2022, and Zhuang et
al. 2023 use it), over the default's fused head, on text nobody tuned on.

No cross-encoder weights are on this machine, and a cross-encoder trained from
pseudo-queries learned their shortcut (docs/benchmarks.md). A language model scores
``log p(question | passage)`` with no relevance training at all; the only one small
enough for 2 cores is the packaged SmolLM2-135M-Instruct, read into torch from its GGUF
by transformers (which needs the ``gguf`` package: ``pip install gguf==0.19.0``).

Each question of the set is asked in its gold analysis as ``retrieval_quality.py``
asks it (its left-out passages hidden from every signal); the fused top ``--top`` are
scored by the mean log-probability of the question's tokens after "Passage: … Please
write a question about this passage. Question:", and ranked by that score alone
(``none``) or by the fused score plus ``weight`` times it (both min-max scaled, as
``mix`` does for the adapted reranker). Prints JSON: MRR@10 per weight, its difference
from the default with a paired 95 % bootstrap interval, its ratio to BM25, and the
seconds the model took per question.

    python benchmarks/query_likelihood.py [--set long] [--work-dir DIR] [--top 10]
        [--weights none,0.5,1,2] [--limit N]

The knowledge base is the one ``retrieval_quality.py --work-dir DIR`` builds (built
here if missing).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.corpora import load_set, shared_dir  # noqa: E402
from benchmarks.retrieval_quality import build  # noqa: E402
from mitra.evaluation.metrics import bootstrap_interval  # noqa: E402
from mitra.evaluation.retrieval import locked_metrics  # noqa: E402
from mitra.models.llm import PACKAGED_GGUF_PACKAGE, packaged_gguf  # noqa: E402

PROMPT = "\nPlease write a question about this passage."
ASK = "\nQuestion:"


class QueryLikelihood:
    """``Reranker``: the mean log-probability of the question's tokens given a passage."""

    name = f"query likelihood ({PACKAGED_GGUF_PACKAGE})"

    def __init__(self, gguf: Path, passage_tokens: int = 192, threads: int = 2):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        torch.set_num_threads(threads)
        self.torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        self.model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32).eval()
        self.passage_tokens = passage_tokens
        self.weight: float | None = None  # None: rank by this score alone (``mix``)
        self.cache: dict[tuple[str, str], float] = {}  # the weights share one scoring pass
        self.seconds = 0.0

    def _ids(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=False).input_ids

    def score(self, query: str, passages: list[str]) -> list[float]:
        todo = [p for p in dict.fromkeys(passages) if (query, p) not in self.cache]
        if todo:
            start = time.perf_counter()
            for passage, value in zip(todo, self._likelihoods(query, todo)):
                self.cache[(query, passage)] = value
            self.seconds += time.perf_counter() - start
        return [self.cache[(query, p)] for p in passages]

    def _likelihoods(self, query: str, passages: list[str]) -> list[float]:
        torch = self.torch
        asked, question = self._ids(ASK), self._ids(" " + query)
        heads = [self._ids("Passage: " + p)[: self.passage_tokens] + self._ids(PROMPT) + asked for p in passages]
        rows = [head + question for head in heads]
        ids = torch.full((len(rows), max(map(len, rows))), self.tokenizer.pad_token_id or 0)
        mask = torch.zeros_like(ids)
        for r, row in enumerate(rows):
            ids[r, : len(row)], mask[r, : len(row)] = torch.tensor(row), 1
        with torch.inference_mode():
            hidden = self.model.model(input_ids=ids, attention_mask=mask).last_hidden_state
            values = []
            for r, head in enumerate(heads):
                # the vocabulary head only where a question token is predicted (~20 % of the work otherwise)
                at = torch.arange(len(head) - 1, len(head) + len(question) - 1)
                logits = self.model.lm_head(hidden[r, at])
                values.append(float(torch.log_softmax(logits, -1).gather(1, ids[r, at + 1, None]).mean()))
        return values


def mrr(rows: list[dict]) -> np.ndarray:
    return np.array([row["MRR@10"] for row in rows])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", default="long")
    parser.add_argument("--work-dir", type=Path, default=Path("/tmp/mitra-retrieval-quality"))
    parser.add_argument("--top", type=int, default=10, help="fused candidates the model reads")
    parser.add_argument("--weights", default="none,0.5,1,2", help="'none': the model's order alone")
    parser.add_argument("--limit", type=int, help="a seeded sample of this many questions")
    args = parser.parse_args()
    root = shared_dir()
    if root is None:
        sys.exit("../shared/data not found (set MITRA_SHARED_DIR): this benchmark needs the public sets")

    bench = load_set(args.set, root, args.work_dir / "files")
    pipeline, _, _ = build(bench, args.work_dir / args.set, True, {"rerank_top_n": args.top})
    gold = [g for g in bench.locked if g.has_gold]
    if args.limit:
        gold = random.Random(0).sample(gold, min(args.limit, len(gold)))
    bm25, fused = mrr(locked_metrics(pipeline, gold, "bm25")), mrr(locked_metrics(pipeline, gold, "hybrid"))
    reranker = QueryLikelihood(packaged_gguf())
    pipeline.retriever.reranker = reranker
    report = {"benchmark": "query_likelihood", "set": args.set, "questions": len(gold), "top": args.top,
              "bm25": round(float(bm25.mean()), 4), "default": round(float(fused.mean()), 4), "weights": {}}
    for text in args.weights.split(","):
        reranker.weight = None if text == "none" else float(text)
        scores = mrr(locked_metrics(pipeline, gold, "rerank"))
        low, high = bootstrap_interval(list(scores - fused))
        mean, diff = float(scores.mean()), float((scores - fused).mean())
        report["weights"][text] = {"MRR@10": round(mean, 4), "minus_default": round(diff, 4),
                                   "interval": [round(low, 4), round(high, 4)],
                                   "ratio_to_bm25": round(mean / float(bm25.mean()), 3)}
        print(f"{text}: {report['weights'][text]}", file=sys.stderr, flush=True)
    report["model_seconds_per_question"] = round(reranker.seconds / len(gold), 2)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
