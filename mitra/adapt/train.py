"""``mitra adapt``: a reranker trained on-premise on the collaboration's own documents.

No download, no human labels. Six steps, each saved in ``models/adapt-work/`` before
the next starts, so a run killed at any point and started again goes on where it was
(a changed corpus starts the work afresh):

1. snapshot   the current passages of every analysis with full text, and their hash;
2. queries    pseudo-queries (``mitra.adapt.pseudo_queries``): section headings, figure
              and table captions and passages' distinctive sentences (as questions or key
              terms; none needs headings), and questions the configured LLM writes within
              its share of the time budget when a probe shows it writes enough of them;
3. negatives  for each query, the passages the default fusion ranks highest in its
              analysis, other than the one it came from;
4. train      the packaged bi-encoder (``adapt_base_model``) fine-tuned with in-batch
              and hard negatives (multiple-negatives ranking loss), checkpoints kept;
5. validate   on the held-out passages' queries: the fused ranking alone against the
              fused ranking mixed with the adapted similarity at several weights, for
              each checkpoint; the best wins, and the model is switched on only where
              its gain over fusion has a 95 % interval above zero;
6. publish    ``models/adapted-<time>/``: the model, the snapshot's passage vectors (so
              reranking embeds only the question) and ``manifest.json``; then
              ``models/adapted.json`` is pointed at it by an atomic rename.

Measured on the public sets (README): a cross-encoder started from the same weights
with a new head learned nothing in this budget, and inverse-cloze sentences as
queries made the encoder worse; LLM-written questions are what pays.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import shutil
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Literal

import numpy as np
from pydantic import BaseModel, Field

from mitra.core import faults
from mitra.models.adapted import AdaptManifest, HeldoutScores, base_encoder, publish, text_key
from mitra.core.errors import MitraError
from mitra.store.index_files import share_model
from mitra.store.lock import writer_lock
from mitra.evaluation.metrics import bootstrap_interval, mrr_at_k
from mitra.adapt.pseudo_queries import (LLMBudget, PseudoQuery, heading_queries, llm_queries, passage_for,
                                        sentence_queries)
from mitra.core.settings import Settings
from mitra.core.types import Chunk

if TYPE_CHECKING:
    from mitra.retrieval.pipeline import Pipeline

log = logging.getLogger(__name__)

# Below this there is nothing to learn from: a passage gives at most ``PER_PASSAGE`` caption
# or statement queries, one in five passages is held out, and training needs 20 queries
# and validation 5.
MIN_PASSAGES = 50
MIN_TRAIN, MIN_HELDOUT = 20, 5
# Held-out queries are drawn in this order: the LLM's are the most like users' questions.
HELDOUT_ORDER = ("llm", "heading", "caption", "statement")
MIX_WEIGHTS = (0.5, 1.0, 2.0)  # adapted score weight against the fused score (each min-max scaled)
NEGATIVES = 3  # a training question's hard negative is drawn from fusion's ranks 2-4


class AdaptError(MitraError):
    """Adaptation cannot run on this knowledge base (too small, nothing indexed, ...)."""


class AdaptOptions(BaseModel):
    minutes: float = Field(10.0, gt=0, description="the whole run's time budget")
    llm_share: float = Field(0.5, ge=0, le=1, description="share of the budget for LLM-written questions")
    llm_questions: int = Field(400, ge=0, description="at most this many LLM-written questions")
    llm_min_questions: int = Field(
        20, ge=0, description="the LLM is stopped after a probe when its rate would give fewer questions in its share")
    max_queries: int = Field(
        600, ge=1, description="at most this many heading, caption and statement queries (LLM questions come on "
                               "top): one in five is held out (120), the rest more than 10 minutes train on")
    max_steps: int | None = Field(None, ge=1, description="stop training after this many steps (tests)")
    heldout_queries: int = Field(120, ge=10, description="held-out queries a checkpoint is validated on")
    enable: Literal["auto", "always", "never"] = "auto"


Progress = Callable[[str, int, int | None], None]  # (stage, done, total)


# ---------------------------------------------------------------- the run
def run_adaptation(pipeline: Pipeline, options: AdaptOptions, progress: Progress | None = None) -> AdaptManifest:
    """Train, validate and publish an adapted reranker for ``pipeline``'s knowledge base."""
    with writer_lock(pipeline.settings, "adapt"):
        return _run(pipeline, options, progress or (lambda stage, done, total: None))


def _run(pipeline: Pipeline, options: AdaptOptions, report: Progress) -> AdaptManifest:
    settings = pipeline.settings
    started = time.monotonic()
    deadline = started + options.minutes * 60
    seconds: dict[str, float] = {}

    chunks, snapshot = corpus_snapshot(pipeline)
    work = _Work(settings.models_dir / "adapt-work", snapshot)
    with _timed(seconds, "queries"):
        queries, llm_note = _queries(pipeline, work, chunks, options, deadline, report)
    faults.reached("adapt.queries")
    with _timed(seconds, "negatives"):
        examples = _negatives(pipeline, work, queries, report)
    train = [e for e in examples if not e.query.heldout]
    heldout = sorted((e for e in examples if e.query.heldout), key=lambda e: HELDOUT_ORDER.index(e.query.kind))
    heldout = heldout[: options.heldout_queries]
    if len(train) < MIN_TRAIN or len(heldout) < MIN_HELDOUT:
        raise AdaptError(f"only {len(train)} training and {len(heldout)} held-out queries could be made from "
                         f"{_size(chunks)}, too few sentences of 4-45 words (adaptation needs {MIN_TRAIN} and "
                         f"{MIN_HELDOUT}): index more full text before adapting")
    with _timed(seconds, "training"):
        reserve = _after_training_seconds(settings, heldout, chunks)
        checkpoints, steps = _train(settings, work, train, chunks, options, deadline - reserve, report)
    with _timed(seconds, "validation"):
        best, vectors = _validate(settings, checkpoints, heldout, chunks, report)
    enabled, reason = _decide(best, options.enable)
    with _timed(seconds, "passage_vectors"):
        target = stage_model(settings, Path(best.checkpoint), chunks, report, known=vectors)
    seconds["total"] = round(time.monotonic() - started, 1)
    manifest = AdaptManifest(
        model_dir=target.name,
        base_model=settings.adapt_base_model,
        max_length=settings.adapt_max_length,
        created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        corpus={"analyses": len({c.analysis_id for c in chunks.values()}), "passages": len(chunks), "snapshot": snapshot},
        pseudo_queries={**{k: sum(q.kind == k for q in queries) for k in HELDOUT_ORDER},
                        "train": len(train), "heldout": len(heldout)},
        llm=llm_note,
        steps=steps,
        heldout=best,
        enabled=enabled,
        reason=reason,
        seconds=seconds,
    )
    publish(settings, manifest)
    share_model(settings, target)
    work.finish()
    return manifest


def _timed(seconds: dict[str, float], name: str):
    class _Timer:
        def __enter__(self):
            self.start = time.monotonic()

        def __exit__(self, *exc):
            seconds[name] = round(time.monotonic() - self.start, 1)

    return _Timer()


def corpus_snapshot(pipeline: Pipeline) -> tuple[dict[str, Chunk], str]:
    """The current passages of every analysis with full text, and a hash of their ids."""
    chunks: dict[str, Chunk] = {}
    for record in pipeline.kb.catalog.analyses():
        if any(not d.superseded and d.n_chunks for d in pipeline.kb.documents(record.analysis.id)):
            chunks.update((c.id, c) for c in pipeline.kb.chunks(record.analysis.id) if not c.superseded)
    if len(chunks) < MIN_PASSAGES:
        raise AdaptError(f"the knowledge base is too small to adapt to: {_size(chunks)} of full text; adaptation "
                         f"needs at least {MIN_PASSAGES} passages: index documents first (mitra index-jsonl, mitra ingest)")
    digest = hashlib.sha256("\n".join(sorted(chunks)).encode()).hexdigest()[:16]
    return chunks, digest


def _size(chunks: dict[str, Chunk]) -> str:
    return f"{len(chunks)} passages in {len({c.analysis_id for c in chunks.values()})} analyses"


class _Work:
    """The work directory of one corpus snapshot; another snapshot's leftovers are cleared."""

    def __init__(self, path: Path, snapshot: str):
        self.path = path
        state = path / "state.json"
        if path.exists() and (not state.exists() or json.loads(state.read_text()).get("snapshot") != snapshot):
            shutil.rmtree(path)
        path.mkdir(parents=True, exist_ok=True)
        state.write_text(json.dumps({"snapshot": snapshot}))

    def file(self, name: str) -> Path:
        return self.path / name

    def done(self, name: str) -> bool:
        return (self.path / f"{name}.done").exists()

    def mark(self, name: str) -> None:
        (self.path / f"{name}.done").touch()

    def finish(self) -> None:
        """Checkpoints go (they are large); the queries stay for the next run on this corpus."""
        shutil.rmtree(self.path / "checkpoints", ignore_errors=True)
        (self.path / "training.done").unlink(missing_ok=True)


# ---------------------------------------------------------------- 2. queries
def _queries(pipeline: Pipeline, work: _Work, chunks: dict[str, Chunk], options: AdaptOptions,
             deadline: float, report: Progress) -> tuple[list[PseudoQuery], str]:
    path = work.file("queries.jsonl")
    rng = random.Random(0)
    ordered = sorted(chunks.values(), key=lambda c: (c.analysis_id, c.doc_id, c.position))
    if not work.done("queries-structural"):
        headings = list(heading_queries(ordered))[: options.max_queries]
        _write_lines(path, headings + sentence_queries(ordered, options.max_queries - len(headings), rng), mode="w")
        work.mark("queries-structural")
    queries = [PseudoQuery.model_validate_json(line) for line in path.read_text().splitlines()]
    note = "no LLM questions asked (llm_share or llm_questions is 0)"
    asked = {q.chunk_id for q in queries if q.kind == "llm"}
    budget = LLMBudget(seconds=max(0.0, options.llm_share * (deadline - time.monotonic())),
                       max_questions=options.llm_questions - len(asked), min_questions=options.llm_min_questions)
    if not work.done("queries-llm") and budget.seconds > 0 and budget.max_questions > 0:
        writer, note = _question_writer(pipeline.settings)
        if writer is not None:
            made = []
            for query in llm_queries(ordered, writer, budget, rng, done=asked,
                                     on_query=lambda q: report("questions", len(made) + 1, budget.max_questions)):
                made.append(query)
                _write_lines(path, [query], mode="a")
            queries += made
            note += f"; {len(asked) + len(made)} questions" + (f"; {budget.stopped}" if budget.stopped else "")
        work.mark("queries-llm")
    elif asked:
        note = f"{len(asked)} questions from an earlier run"
    return queries, note


def _question_writer(settings: Settings) -> tuple[Callable[[Chunk], str] | None, str]:
    """The configured chat model writing one question per passage, or None with the reason."""
    from mitra.models.llm import LLMError, load_chat_model
    from mitra.adapt.pseudo_queries import pseudo_question_messages

    try:
        model, info = load_chat_model(settings.model_copy(update={"llm_max_tokens": 48, "llm_temperature": 0.0}))
    except (LLMError, MitraError) as error:
        return None, f"no LLM questions: {error}"

    def write(chunk: Chunk) -> str:
        try:
            return str(model.invoke(pseudo_question_messages(chunk)).content)
        except Exception as error:  # a failed question is skipped, the run goes on
            log.warning("question not written for %s: %s", chunk.id, error)
            return ""

    return write, f"questions written by {info}"


def _write_lines(path: Path, queries: list[PseudoQuery], mode: str) -> None:
    with path.open(mode, encoding="utf-8") as handle:
        handle.writelines(q.model_dump_json() + "\n" for q in queries)


# ---------------------------------------------------------------- 3. negatives
class Example(BaseModel):
    query: PseudoQuery
    negatives: list[str]  # chunk ids, hardest first
    fused: dict[str, float]  # the fused score of each passage fusion returned (validation)


def _negatives(pipeline: Pipeline, work: _Work, queries: list[PseudoQuery], report: Progress) -> list[Example]:
    path = work.file("examples.jsonl")
    examples = [Example.model_validate_json(line) for line in path.read_text().splitlines()] if path.exists() else []
    seen = {(e.query.query, e.query.chunk_id) for e in examples}
    with path.open("a", encoding="utf-8") as handle:
        for n, query in enumerate(queries, start=1):
            if (query.query, query.chunk_id) in seen:
                continue
            hits = pipeline.retriever.search(query.analysis_id, query.query, system="hybrid",
                                             k=pipeline.settings.rerank_top_n).hits
            example = Example(query=query, negatives=[h.chunk.id for h in hits if h.chunk.id != query.chunk_id],
                              fused={h.chunk.id: h.scores.get("fused", 0.0) for h in hits})
            handle.write(example.model_dump_json() + "\n")
            examples.append(example)
            report("negatives", n, len(queries))
    return examples


# ---------------------------------------------------------------- 4. train
def _train(settings: Settings, work: _Work, train: list[Example], chunks: dict[str, Chunk],
           options: AdaptOptions, deadline: float, report: Progress) -> tuple[list[Path], int]:
    """Train until ``deadline`` (the run's, less the time validation and the passage
    vectors will take), at most 3 epochs; returns the checkpoints to validate (the one
    half-way and the last)."""
    from datasets import Dataset
    from sentence_transformers import SentenceTransformerTrainer, SentenceTransformerTrainingArguments, losses
    from sentence_transformers.training_args import BatchSamplers
    from transformers import PrinterCallback, TrainerCallback

    out = work.file("checkpoints")
    rng = random.Random(1)
    everything = sorted(chunks)
    rows: dict[str, list[str]] = {"anchor": [], "positive": [], "negative": []}
    for example in train:
        # Not the very first: the passage fusion ranks highest may well answer the question too.
        negatives = [i for i in example.negatives[1 : NEGATIVES + 1] if i in chunks] or [rng.choice(everything)]
        rows["anchor"].append(example.query.query)
        rows["positive"].append(passage_for(example.query, chunks[example.query.chunk_id]))
        rows["negative"].append(chunks[rng.choice(negatives)].index_text)
    dataset = Dataset.from_dict(rows).shuffle(seed=0)
    batch = settings.adapt_batch_size
    epochs_cap = 3 * max(1, len(dataset) // batch)
    max_steps = min(options.max_steps or epochs_cap, epochs_cap)

    class Budget(TrainerCallback):
        def on_step_end(self, args, state, control, **kwargs):
            report("training", state.global_step, state.max_steps)
            if time.monotonic() >= deadline:
                control.should_training_stop = True
                control.should_save = True
            return control

        def on_save(self, args, state, control, **kwargs):
            faults.reached("adapt.checkpoint")

    model = base_encoder(settings)
    args = SentenceTransformerTrainingArguments(
        output_dir=str(out), per_device_train_batch_size=batch, max_steps=max_steps,
        learning_rate=settings.adapt_learning_rate, lr_scheduler_type="constant_with_warmup", warmup_steps=0.1,
        save_strategy="steps", save_steps=max(1, max_steps // 2), save_total_limit=2, logging_steps=50,
        report_to=[], use_cpu=settings.device == "cpu", seed=0, disable_tqdm=True,
        batch_sampler=BatchSamplers.NO_DUPLICATES,
    )
    trainer = SentenceTransformerTrainer(model=model, args=args, train_dataset=dataset,
                                         loss=losses.MultipleNegativesRankingLoss(model), callbacks=[Budget()])
    trainer.remove_callback(PrinterCallback)  # it prints to stdout; progress goes to ``report``
    if not work.done("training"):
        resume = any(out.glob("checkpoint-*"))
        trainer.train(resume_from_checkpoint=True if resume else None)
        trainer.save_model(str(out / "final"))
        (out / "final" / "steps.json").write_text(json.dumps({"steps": trainer.state.global_step}))
        work.mark("training")
    steps = json.loads((out / "final" / "steps.json").read_text())["steps"]
    earlier = sorted((int(p.name.split("-")[1]), p) for p in out.glob("checkpoint-*") if int(p.name.split("-")[1]) < steps)
    return [*(p for _, p in earlier[-1:]), out / "final"], steps


# ---------------------------------------------------------------- 5. validate
VALIDATED_CHECKPOINTS = 2  # the one half-way and the last


def _after_training_seconds(settings: Settings, heldout: list[Example], chunks: dict[str, Chunk]) -> float:
    """What validation and the passage vectors will take, from the encoder's measured speed
    on this machine now: each checkpoint encodes the held-out candidates once, then the
    chosen one the rest of the snapshot's passages."""
    candidates = {chunks[i].index_text for e in heldout for i in e.fused}
    texts = VALIDATED_CHECKPOINTS * len(candidates) + len({c.index_text for c in chunks.values()} - candidates)
    sample = sorted(candidates)[:32] or [c.index_text for c in list(chunks.values())[:32]]
    model = base_encoder(settings)
    start = time.monotonic()
    model.encode(sample, batch_size=32)
    per_text = (time.monotonic() - start) / len(sample)
    return 1.2 * per_text * texts + 10.0  # margin, and loading each checkpoint


def _validate(settings: Settings, checkpoints: list[Path], heldout: list[Example], chunks: dict[str, Chunk],
              report: Progress) -> tuple[HeldoutScores, dict[str, np.ndarray]]:
    """Each checkpoint on the held-out queries, mixed with fusion at each weight (or alone);
    the best by mean MRR@10, with the interval of its gain over fusion, and the best
    checkpoint's vectors of the passages it encoded (by text: the published model keeps them)."""
    from mitra.retrieval.fusion import mix

    fusion = [_mrr(e, e.fused) for e in heldout]
    texts = sorted({chunks[i].index_text for e in heldout for i in e.fused})
    best, best_values = (str(checkpoints[-1]), 0.0), fusion  # fusion alone: the last is published, switched off
    vectors_of: dict[str, dict[str, np.ndarray]] = {}
    for n, path in enumerate(checkpoints, start=1):
        model = base_encoder(settings, str(path))
        vectors = vectors_of[str(path)] = dict(zip(texts, _encode(model, texts)))
        questions = _encode(model, [e.query.query for e in heldout])
        by_weight: dict[float | None, list[float]] = {}
        for example, question in zip(heldout, questions):
            adapted = {i: float(vectors[chunks[i].index_text] @ question) for i in example.fused}
            for weight in (*MIX_WEIGHTS, None):
                by_weight.setdefault(weight, []).append(_mrr(example, mix(example.fused, adapted, weight)))
        for weight, values in by_weight.items():
            if np.mean(values) > np.mean(best_values) + 1e-9:
                best, best_values = (str(path), weight), values
        report("validation", n, len(checkpoints))
    low, high = bootstrap_interval([a - f for a, f in zip(best_values, fusion)], resamples=2000)
    scores = HeldoutScores(queries=len(heldout), fusion_mrr=round(float(np.mean(fusion)), 4),
                           adapted_mrr=round(float(np.mean(best_values)), 4),
                           gain_ci95=(round(low, 4), round(high, 4)), weight=best[1], checkpoint=best[0])
    return scores, vectors_of[best[0]]


def _encode(model, texts: list[str]) -> np.ndarray:
    return model.encode(texts, normalize_embeddings=True, convert_to_numpy=True, batch_size=32)


def _mrr(example: Example, scores: dict[str, float]) -> float:
    order = sorted(scores, key=lambda i: (-scores[i], i))
    return mrr_at_k([i == example.query.chunk_id for i in order], 10)


def _decide(best: HeldoutScores, enable: str) -> tuple[bool, str]:
    gain, (low, high) = best.adapted_mrr - best.fusion_mrr, best.gain_ci95
    measured = f"held-out MRR@10 {gain:+.3f} against fusion, 95 % interval [{low:+.3f}, {high:+.3f}]"
    if enable != "auto":
        return enable == "always", f"--enable {enable}; {measured}"
    if best.weight != 0.0 and low > 0:
        return True, f"beats fusion: {measured}"
    return False, f"does not clearly beat fusion ({measured}): the fused ranking stays the default"


# ---------------------------------------------------------------- 6. publish and load
def stage_model(settings: Settings, checkpoint: Path, chunks: dict[str, Chunk], report: Progress,
                known: dict[str, np.ndarray] | None = None) -> Path:
    """A new model directory: the chosen checkpoint and the snapshot's passage vectors
    (``known``: those already encoded by this checkpoint, by text)."""
    name = f"adapted-{datetime.now(timezone.utc).strftime('%Y%m%dT%H%M%S%f')}"
    target = settings.models_dir / name
    shutil.copytree(checkpoint, target, ignore=shutil.ignore_patterns("optimizer.pt", "scheduler.pt", "rng_state*",
                                                                       "trainer_state.json", "training_args.bin",
                                                                       "steps.json"))
    model = base_encoder(settings, str(target))
    texts = sorted({c.index_text for c in chunks.values()})
    vectors = dict(known or {})
    missing = [t for t in texts if t not in vectors]
    for start in range(0, len(missing), 256):
        vectors.update(zip(missing[start : start + 256], _encode(model, missing[start : start + 256])))
        report("passage vectors", min(start + 256, len(missing)), len(missing))
    np.save(target / "passages.npy", np.stack([vectors[t] for t in texts]).astype(np.float16))
    (target / "passages.json").write_text(json.dumps([text_key(t) for t in texts]))
    return target


