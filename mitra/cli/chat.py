"""``mitra chat``: the web app's conversation in the terminal.

Ask a question, confirm an analysis by its number (0 = none of these), then follow
up; ``/switch`` leaves the analysis, ``/new`` starts over, ``/quit`` (or Ctrl-D) ends.
``/across [QUESTION]`` answers from the top routed analyses (the question waiting for an
analysis when none is given), ``/compare A,B QUESTION`` in two analyses side by side; the
lock stays as it was.
When a question looks like it is about another analysis, ``y`` switches to it and ``n``
answers from the locked one anyway.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from mitra.cli.common import console, knowledge, user_errors
from mitra.core.errors import MitraError

if TYPE_CHECKING:  # the session pulls in the models' libraries: imported when `chat` runs
    from mitra.chat.events import Event
    from mitra.chat.session import Session
    from mitra.chat.turns import StreamedTurn

out = Console(highlight=False)

COMMANDS = {"/new": "new_conversation", "/switch": "switch"}
HELP = ("Commands: a number picks an analysis, 0 = none of these, y/n to a proposed switch, /switch, /new, "
        "/across [QUESTION], /compare A,B QUESTION, /quit.")


def show(events: list[Event]) -> None:
    from mitra.chat.events import Candidates, Locked, Notice, SearchPrompt, SearchResults, SwitchOffer
    from mitra.chat.labels import document_label
    from mitra.chat.turns import AcrossTurn, AnswerTurn, CompareTurn, part_summary

    for event in events:
        if isinstance(event, Candidates):
            out.print("Which analysis is your question about?")
            for i, c in enumerate(event.options, start=1):
                out.print(f"  [bold]{i}[/] {escape(c.analysis.id)} — {escape(c.analysis.title)} [dim](match {c.score:.2f})[/]")
            out.print("  [bold]0[/] none of these   [dim](or rephrase the question)[/]")
        elif isinstance(event, SearchPrompt):
            out.print("Type part of the analysis name or id, or rephrase your question.")
        elif isinstance(event, SearchResults):
            for i, a in enumerate(event.matches, start=1):
                out.print(f"  [bold]{i}[/] {escape(a.id)} — {escape(a.title)}")
        elif isinstance(event, Locked):
            versions = ", ".join(
                document_label(d.document.doc_id, d.document.version) for d in event.documents if not d.superseded
            )
            out.rule(f"[bold]locked on {escape(event.analysis.id)}[/] — {escape(event.analysis.title)} [dim]({versions})[/]")
        elif isinstance(event, SwitchOffer):
            out.print(f"[yellow]{escape(event.text)}[/]")
            out.print(f"  [bold]y[/] switch to {escape(event.suggested.analysis.id)}   "
                      f"[bold]n[/] answer from {escape(event.current.id)} anyway")
        elif isinstance(event, Notice):
            out.print(f"[yellow]{escape(event.text)}[/]")
        elif isinstance(event, AnswerTurn):
            stream_answer(event)
        elif isinstance(event, AcrossTurn):
            out.rule("[bold]across analyses[/]")
            stream_answer(event, with_analysis=True)
            for part in event.answer.parts if event.answer else []:
                out.print(f"[dim]{escape(part.analysis_id)} ({escape(part.title)}): {part_summary(part)}[/]")
        elif isinstance(event, CompareTurn):
            for side in event.turns:
                out.rule(f"[bold]{escape(side.analysis.id)}[/] — {escape(side.analysis.title)}")
                stream_answer(side)


def stream_answer(turn: StreamedTurn, with_analysis: bool = False) -> None:
    """A turn's answer as it streams, then its support notes and passages (``with_analysis``:
    each naming its analysis, as in an across answer)."""
    from mitra.chat.labels import source_label

    from mitra.cli.answer import print_reading, print_support, quote_markup

    turn.on_reading = lambda t: print_reading(t.reading, t.passages, with_analysis)
    turn.on_quote = lambda t: out.print(quote_markup(t.quote) + "\n")
    for token in turn.tokens():
        out.print(token, end="", markup=False)
    out.print()
    if turn.answer is not None:
        print_support(turn.answer)
    if turn.error:
        out.print(f"[red]{escape(turn.error)}[/] — the retrieved passages follow.")
    cited = set(turn.answer.cited) if turn.answer else set()
    for n, hit in enumerate(turn.passages, start=1):
        style = "bold" if n in cited else "dim"  # what the answer cites stands out
        out.print(f"[{style}]{escape(source_label(n, hit, with_analysis))}[/]")


def handle(session: Session, line: str) -> list[Event]:
    from mitra.chat.session import Phase

    if line in COMMANDS:
        return getattr(session, COMMANDS[line])()
    command, _, rest = line.partition(" ")
    if command == "/across":
        return session.across(rest.strip() or None)
    if command == "/compare":
        from mitra.answer.across import pair

        ids, _, question = rest.strip().partition(" ")
        return session.compare(*pair(ids), question)
    if session.phase is Phase.offering and line.lower() in ("y", "yes", "n", "no"):
        return session.accept_switch() if line.lower().startswith("y") else session.stay()
    if line.isdigit() and session.phase in (Phase.choosing, Phase.searching):
        number = int(line)
        if number == 0 and session.phase is Phase.choosing:
            return session.none_of_these()
        if not 1 <= number <= len(session.choices):
            raise MitraError(f"Pick a number between 1 and {len(session.choices)}.")
        return session.confirm(session.choices[number - 1].id)
    return session.submit(line)


def register(app: typer.Typer) -> None:
    @app.command("feedback-export")
    @user_errors
    def feedback_export(
        out: Annotated[Path, typer.Argument(help="Where to write the JSONL (the `mitra eval --gold` format).")],
    ) -> None:
        """Thumbs up/down given in the chat app, as evaluation questions."""
        from mitra.evaluation.feedback import FeedbackStore

        kb = knowledge()  # only feedback on analyses the exporter may read
        text = FeedbackStore.open(kb.settings).to_jsonl({a.id for a in kb.analyses()})
        out.write_text(text)
        console.print(f"wrote {text.count(chr(10))} questions to {out}")

    @app.command()
    @user_errors
    def chat() -> None:
        """Chat in the terminal: route, confirm an analysis, then ask follow-ups with cited answers."""
        from mitra.audit import open_audit
        from mitra.cli.common import pipeline
        from mitra.chat.session import RetrievalOnly, Session, load_answerer

        p = pipeline()
        if not p.kb.analyses():
            raise MitraError("The knowledge base is empty: index analyses first (`mitra index-jsonl FILE`).")
        answerer = load_answerer(p)
        if isinstance(answerer, RetrievalOnly):
            console.print(f"[yellow]No language model, passages only:[/] {escape(str(answerer.error))}")
        session = Session(p, answerer, open_audit(p.settings))
        console.print(HELP)
        while True:
            try:
                line = typer.prompt("you", prompt_suffix="> ").strip()
            except (EOFError, typer.Abort):
                break
            if line == "/quit":
                break
            try:
                show(handle(session, line))
            except MitraError as error:
                out.print(f"[red]{escape(str(error))}[/]")
