"""MITRA chat: a thin renderer of ``mitra.chat.session.Session``.

Run: ``streamlit run app.py`` (settings from MITRA_* env, mitra.toml or .env).
User actions (chat input, buttons) call the session in callbacks or before the
transcript is drawn; the transcript is then drawn top to bottom, and an answer
not yet produced is streamed where it stands.
"""

from __future__ import annotations

from functools import partial

import streamlit as st

from mitra import ui
from mitra.ui import modes
from mitra.ui.brief import lock_banner
from mitra.evaluation.feedback import Feedback
from mitra.store.conversations import SavedTurn
from mitra.ui.render import inert_markdown as inert
from mitra.chat.events import (Candidates, Locked, Notice, PastTurn, Recalled, SearchPrompt, SearchResults, SwitchOffer,
                               UserSaid)
from mitra.chat.saved import ASIDE
from mitra.chat.session import Phase, Session
from mitra.chat.turns import AcrossTurn, AnswerTurn, CompareTurn, part_summary


PLACEHOLDER = {
    Phase.new: "Ask about an analysis, e.g. “What is the dominant background?”",
    Phase.choosing: "Or rephrase your question…",
    Phase.searching: "Type part of an analysis name or id, or rephrase your question…",
    Phase.locked: "Ask a follow-up…",
    Phase.offering: "Or ask another question…",
}
# How the next question is answered: routed to one analysis (the conversation's flow), from
# the top routed analyses at once, or in two chosen analyses side by side.
NOTE_ICONS = {"citation moved": ":material/swap_horiz:", "figure removed": ":material/rule:",
              "not supported": ":material/warning:", "figure corrected": ":material/rule:",
              "figure unstated": ":material/rule:", "value not stated": ":material/warning:",
              "value uncertain": ":material/help:", "value unconfirmed": ":material/help:"}
MODE_PLACEHOLDER = {"across": "Ask across the analyses you may read…", "compare": "Ask both analyses…"}


def session() -> Session:
    if "session" not in st.session_state:
        # Conversations are saved for signed-in members only: in open mode everyone is one
        # "anonymous", and would read each other's history.
        saved = None if ui.reader().principal.open else ui.conversation_store()
        st.session_state.session = Session(ui.reader(), ui.answerer().for_pipeline(ui.reader()), ui.audit_log(),
                                           ui.prompt_speed(), conversations=saved)
        st.session_state.ratings = {}  # an answer's key (its transcript index; side by side, with its analysis) -> row
    return st.session_state.session


def act(method: str, *args) -> None:
    """Button callback: run a session action; its error is shown on the next draw."""
    try:
        getattr(session(), method)(*args)
    except Exception as error:  # shown by flash(); the session is left as it was
        st.session_state.flash = error


def submit() -> None:
    """Chat input callback: the question is taken before the page is drawn, so the input's
    hint already fits the phase it leads to (choosing an analysis, a switch on offer)."""
    question, mode = st.session_state.question, st.session_state.get("mode", "one")
    if mode == "across":
        act("across", question)
    elif mode == "compare":
        act("compare", *modes.compare_pair(), question)
    else:
        act("submit", question)


def new_conversation() -> None:
    act("new_conversation")
    st.session_state.ratings = {}  # keyed by transcript index, which starts again at 0


def resume(conversation_id: str) -> None:
    act("resume", conversation_id)
    st.session_state.ratings = {}


def asked_from_link(s: Session) -> None:
    """A brief's question link (``?analysis=ID&ask=…``): the chat locks on the analysis and asks it, once."""
    analysis, question = st.query_params.get("analysis"), st.query_params.get("ask")
    if analysis and question:
        st.query_params.clear()
        act("lock", analysis)
        if s.analysis is not None and s.analysis.id == analysis:
            act("submit", question)


def flash() -> None:
    error = st.session_state.pop("flash", None)
    if error is not None:
        with ui.user_errors():
            raise error


# ---------------------------------------------------------------- sidebar
def sidebar(s: Session) -> bool:
    with st.sidebar:
        st.markdown(f"### {ui.ASSISTANT} MITRA")
        stats = ui.kb().stats()
        st.caption(
            f"{stats['analyses']} analyses · {stats['documents']} documents · "
            f"{stats['current_chunks']} current passages"
        )
        expert = st.toggle("Expert view", help="Show each stage's scores and timings.")
        modes.answer_mode()
        if s.analysis is not None:
            st.markdown(f":material/lock: **{s.analysis.id}**  \n{s.analysis.title}")
            st.button("Switch analysis", icon=":material/swap_horiz:", on_click=act, args=("switch",), width="stretch")
        st.button(
            "New conversation", icon=":material/add_comment:", on_click=new_conversation,
            width="stretch",
        )
        past_conversations(s)
        st.download_button(
            "Export feedback as eval questions",
            # built on click, not on every rerun; only what this member may read
            data=partial(ui.feedback_store().to_jsonl, {a.id for a in ui.kb().analyses()}),
            file_name="feedback-gold.jsonl",
            mime="application/jsonl",
            help="JSONL in the `mitra eval --gold` format.",
            width="stretch",
        )
        st.caption(ui.model_label())
    return expert


def past_conversations(s: Session) -> None:
    """The member's saved conversations, the last continued first: a click reopens one."""
    if s.conversations is None:
        return
    listed = ui.conversation_store().list(ui.reader().principal_name, limit=20)
    if listed:
        st.caption("Your conversations")
    for c in listed:
        st.button(c.title, key=f"conversation-{c.id}", icon=":material/history:", on_click=resume, args=(c.id,),
                  type="secondary" if c.id == s.conversation_id else "tertiary", width="stretch",
                  help=f"Started {c.created_at[:16].replace('T', ' ')} UTC")


def banner(s: Session) -> None:
    if s.analysis is not None:
        lock_banner(s.analysis, ui.kb().documents(s.analysis.id))


# ---------------------------------------------------------------- events
def render_choices(event_index: int, analyses, scores, expert: bool) -> None:
    for i, (analysis, routed) in enumerate(zip(analyses, scores)):
        with st.container(border=True):
            left, right = st.columns([5, 1.3], vertical_alignment="center")
            with left:
                st.markdown(f"**{inert(analysis.title)}**  \n`{inert(analysis.id)}`")
                if analysis.abstract:
                    snippet = analysis.abstract if len(analysis.abstract) < 240 else analysis.abstract[:237] + "…"
                    st.caption(inert(snippet))
                if routed is not None:
                    # A label that was measured to mean something, not a score that reads like a probability.
                    words = ", ".join(routed.matched)
                    st.caption(f"**{routed.confidence} match**" + (inert(f" · its summary has: {words}") if words else ""))
                    if expert:
                        st.caption(" · ".join(f"{k} {v:.3g}" for k, v in routed.scores.items()))
            with right:
                st.button(
                    "Use this",
                    key=f"pick-{event_index}-{analysis.id}",
                    type="primary" if i == 0 else "secondary",
                    on_click=act,
                    args=("confirm", analysis.id),
                    width="stretch",
                )


def stream_turn(turn, expert: bool, key: str) -> None:
    """An answer's text, streamed where it stands on its first draw, and its support."""
    # The same three slots on every run, streaming or not: the cards below keep their place,
    # so one the member opened stays open across the rerun a click on it makes.
    quoted, status, slot, early = st.empty(), st.empty(), st.empty(), st.empty()
    if not turn.done:
        status.caption(":material/search: Retrieving the passages…")
        turn.on_reading = partial(show_reading, status, early, expert, key)
        turn.on_quote = partial(show_quote, quoted)
        streamed = ui.stream_inert(slot, ui.clear_on_first(status, turn.tokens()))
        status.empty()
        early.empty()  # the cards are drawn again below, now with their page and section views
        if turn.answer is not None and turn.answer.text != streamed:
            slot.markdown(inert(turn.answer.text))  # the checked text: dead citations dropped, wordless answers explained
    elif turn.answer is not None:
        slot.markdown(inert(turn.answer.text))
    if turn.quote is not None or getattr(turn.answer, "value", None) is not None:
        show_quote(quoted, turn)
    if turn.answer is not None:
        render_support(turn.answer)


def show_quote(slot, turn) -> None:
    """A value question's value in the passage's own words: shown first when the code's
    ranking is clear, then the one the model chose once it has."""
    quote = getattr(turn.answer, "value", None) or turn.quote
    slot.info(f"**[{quote.passage}]** {ui.highlighted_quote(quote)}", icon=":material/format_quote:")


def render_sources(turn, expert: bool, key: str) -> None:
    """The passages the model read, the cited ones marked; an across answer's name their analysis."""
    across = isinstance(turn, AcrossTurn)
    documents = ui.documents_for(turn.passages)
    cited = set(turn.answer.cited) if turn.answer else set()
    for n, hit in enumerate(turn.passages, start=1):
        ui.source_card(n, hit, documents, expert, cited=n in cited, key=key, with_analysis=across)


def render_error(turn) -> None:
    if turn.error:
        st.warning(f"{turn.error}\n\nThe passages retrieved for your question are shown below.", icon=":material/cloud_off:")


def render_answer(index: int, turn: AnswerTurn, expert: bool, key: str | None = None) -> None:
    """An answer in one analysis's lock; ``key`` tells apart two answers of one event (side by side)."""
    key = key or str(index)
    stream_turn(turn, expert, key)
    for part in turn.answer.parts if turn.answer is not None else []:
        if not part.answered:  # a multi-part question's part: said, not buried in the answer
            why = ("no passage covers it" if part.skipped else "its passages are not cited" if not part.cited
                   else "what the answer says of it is not in its passages")
            st.caption(f":material/help: Not answered: “{inert(part.question)}” ({why}).")
    if turn.answer is not None and turn.answer.uncited:
        st.caption(":material/warning: This answer cites no passage: treat it as unsupported and read the sources.")
    render_error(turn)
    if turn.standalone and turn.standalone != turn.question:
        st.caption(f"Searched as: “{inert(turn.standalone)}”")
    render_sources(turn, expert, key)
    if turn.answer is not None and turn.answer.ranking and not expert:
        st.caption(f"Passages chosen by the {turn.answer.ranking}.")
    if expert and turn.answer is not None:
        ui.answer_details(turn.answer)
    if turn.answer is not None:
        feedback(key, turn)


def render_across(index: int, turn: AcrossTurn, expert: bool) -> None:
    """One answer from several analyses: what each contributed, and the passages naming theirs."""
    st.caption(":material/hub: Across analyses")
    stream_turn(turn, expert, str(index))
    if turn.answer is not None:
        for part in turn.answer.parts:
            st.caption(f"`{inert(part.analysis_id)}` {inert(part.title)}: {part_summary(part)}")
        if turn.answer.abstained:
            st.caption("No analysis had a passage above the floor: the model was not asked.")
    render_error(turn)
    render_sources(turn, expert, str(index))


def render_compare(index: int, compared: CompareTurn, expert: bool) -> None:
    """The two answers side by side, each with its own cited sources (streamed one after the other)."""
    for column, turn in zip(st.columns(len(compared.turns)), compared.turns):
        with column, st.container(key=f"side-{index}-{turn.analysis.id}"), ui.user_errors():
            st.markdown(f"**{inert(turn.analysis.id)}** — {inert(turn.analysis.title)}")
            render_answer(index, turn, expert, key=f"{index}-{turn.analysis.id}")


def show_reading(status, early, expert: bool, key: str, turn) -> None:
    """The passages as soon as they are chosen, and what the wait is: the member reads
    while the model does (on a CPU that is most of the wait)."""
    status.info(str(turn.reading), icon=":material/hourglass_top:")
    documents = ui.documents_for(turn.passages)
    # Across analyses this is called once per analysis, with the passages served so far: the
    # keys carry their count, unique within the run.
    with early.container(), st.container(key=f"reading-{key}-{len(turn.passages)}"):
        for n, hit in enumerate(turn.passages, start=1):
            ui.source_card(n, hit, documents, expert, key=f"early-{key}-{len(turn.passages)}", live=True,
                           with_analysis=isinstance(turn, AcrossTurn))


def render_support(answer) -> None:
    """What the checks changed or found unsupported, in plain words; a figure that failed
    shows its passage's own sentence, the number highlighted; a withheld draft is one click away."""
    for note in answer.notes:
        if note.quote is not None:
            st.warning(f"{inert(note.text)}\n\n> [{note.quote.passage}] {ui.highlighted_quote(note.quote)}",
                       icon=":material/rule:")
        else:
            st.caption(f"{NOTE_ICONS[note.kind]} {inert(note.text)}")
    if answer.withheld and answer.draft:
        with st.expander("The model's withheld answer"):
            st.markdown(inert(answer.draft))


def render_offer(index: int, offer: SwitchOffer, live: bool) -> None:
    if not live:
        st.caption(inert(offer.summary))
        return
    st.markdown(inert(offer.text))
    left, right = st.columns(2)
    left.button(f"Switch to {offer.suggested.analysis.id}", key=f"switch-{index}", type="primary",
                icon=":material/swap_horiz:", on_click=act, args=("accept_switch",), width="stretch")
    right.button(f"Answer from {offer.current.id} anyway", key=f"stay-{index}", on_click=act, args=("stay",),
                 width="stretch")


def feedback(key: str, turn: AnswerTurn) -> None:
    """Thumbs up or down, acknowledged where it was given: the rating is saved at once, and a
    note on what was good or wrong may follow it."""
    ratings, noted = st.session_state.ratings, st.session_state.setdefault("noted", set())  # noted: feedback rows
    rating = st.feedback("thumbs", key=f"rate-{key}", on_change=rate, args=(key, turn))
    if rating is None or key not in ratings:
        return
    if ratings[key] in noted:
        st.caption(":material/check_circle: Thanks: your rating and your note are saved.")
        return
    st.caption(":material/check_circle: Thanks: your rating is saved.")
    with st.form(key=f"why-{key}", border=False):
        reason = st.text_input("What was good or wrong? (optional)", key=f"reason-{key}")
        if st.form_submit_button("Send"):
            ui.feedback_store().set_reason(ratings[key], reason)
            noted.add(ratings[key])
            st.toast("Thanks, your note is saved.", icon=":material/check_circle:")


def rate(key: str, turn: AnswerTurn) -> None:
    value = st.session_state.get(f"rate-{key}")
    if value is None or turn.answer is None:
        return
    st.session_state.ratings[key] = ui.feedback_store().add(
        Feedback(
            analysis_id=turn.analysis.id,
            question=turn.question,
            standalone=turn.standalone or turn.question,
            answer=turn.answer.text,
            cited_chunk_ids=[hit.chunk.id for _, hit in turn.answer.cited_sources],
            rating=1 if value == 1 else -1,
        )
    )
    ui.audit("feedback", ui.reader().principal_name, analysis=turn.analysis.id, rating=1 if value == 1 else -1,
             chunks=[hit.chunk.id for _, hit in turn.answer.cited_sources])


def render_past(turn: SavedTurn) -> None:
    """A reopened conversation's turn: what was answered and cited then (not asked again)."""
    st.caption(f"From {inert(turn.analysis_id.replace(ASIDE, ', '))} — {inert(turn.analysis_title)}")
    if turn.answer:
        st.markdown(inert(turn.answer))
    if turn.error:
        st.warning(inert(turn.error), icon=":material/cloud_off:")
    for citation in turn.citations:
        st.caption(f":material/push_pin: [{citation.n}] {inert(citation.label)}")


def render(s: Session, expert: bool) -> None:
    last = len(s.transcript) - 1
    for index, event in enumerate(s.transcript):
        if isinstance(event, UserSaid):
            st.chat_message("user", avatar=":material/person:").markdown(inert(event.text))
            continue
        if isinstance(event, PastTurn):
            st.chat_message("user", avatar=":material/person:").markdown(inert(event.turn.question))
            with st.chat_message("assistant", avatar=ui.ASSISTANT):
                render_past(event.turn)
            continue
        with st.chat_message("assistant", avatar=ui.ASSISTANT):
            if isinstance(event, Candidates) and not (index == last and s.phase is Phase.choosing):
                # Answered already: one line instead of the cards.
                st.caption(inert(event.summary))
            elif isinstance(event, Candidates):
                st.markdown("Which analysis is your question about?")
                if not (event.options and event.options[0].confidence == "strong"):
                    st.caption("Your question names no analysis and none of these stands out: choose one, "
                               "or name the analysis.")
                if expert:
                    st.caption(f"Routing margin between the first two: {event.margin:.3f}")
                render_choices(index, [o.analysis for o in event.options], event.options, expert)
                left, right = st.columns(2)
                left.button("None of these", key=f"none-{index}", icon=":material/search:", on_click=act,
                            args=("none_of_these",))
                if event.offer_across:
                    right.button("Answer across these analyses", key=f"across-{index}", icon=":material/hub:",
                                 on_click=act, args=("across",), help="One answer from the top analyses, each claim "
                                 "naming its analysis and citing its passages.")
            elif isinstance(event, SearchPrompt):
                st.markdown(
                    "Which one is it? Type part of its **name or id** below — or **rephrase** your question "
                    "and I will look again."
                )
            elif isinstance(event, SearchResults) and not (index == last and s.phase is Phase.searching):
                st.caption(inert(event.summary))
            elif isinstance(event, SearchResults):
                st.markdown(f"Analyses matching “{inert(event.query)}”:")
                render_choices(index, event.matches, [None] * len(event.matches), expert)
            elif isinstance(event, Locked):
                st.markdown(f":material/lock: Locked on **{inert(event.analysis.id)}** — {inert(event.analysis.title)}.")
            elif isinstance(event, SwitchOffer):
                render_offer(index, event, live=index == last and s.phase is Phase.offering)
            elif isinstance(event, Notice):
                st.info(inert(event.text))
            elif isinstance(event, Recalled):  # a reopened conversation's routing or switch line
                st.caption(inert(event.text))
            elif isinstance(event, AnswerTurn):
                with ui.user_errors():
                    render_answer(index, event, expert)
            elif isinstance(event, AcrossTurn):
                with ui.user_errors():
                    render_across(index, event, expert)
            elif isinstance(event, CompareTurn):
                render_compare(index, event, expert)


def empty_state() -> None:
    st.info(
        "The knowledge base is empty, so there is nothing to ask about yet.\n\n"
        "Index analyses first, for example:\n\n"
        "```\nmitra index-jsonl analyses.jsonl\n```\n"
        "or run an ingestion (see the **Ingestion** page), then reload this page.",
        icon=":material/library_books:",
    )


def main() -> None:
    st.set_page_config(page_title="MITRA", page_icon=ui.ASSISTANT, layout="centered")
    st.html(ui.CSS)
    ui.member()
    st.html('<p class="mitra-title">MITRA</p><p class="mitra-sub">Ask your collaboration\'s analysis notes. '
            "Every answer is grounded in the analyses it names and cites their passages.</p>")
    with ui.user_errors():
        s = session()
        expert = sidebar(s)
        if not ui.kb().analyses():
            empty_state()
            return
        hint = MODE_PLACEHOLDER.get(st.session_state.get("mode"), PLACEHOLDER[s.phase])
        st.chat_input(hint, key="question", on_submit=submit)
        asked_from_link(s)
        flash()
        banner(s)
        if not s.transcript:
            st.caption("Start with a question; I will propose the analyses it most likely refers to.")
        render(s, expert)


# The pages by name in the menu (from pages/ alone, this one would be "app").
st.navigation([
    st.Page(main, title="Chat", icon=ui.ASSISTANT, default=True),
    st.Page("pages/1_Library.py", title="Library", icon=":material/library_books:", url_path="Library"),
    st.Page("pages/4_Brief.py", title="Brief", icon=":material/summarize:", url_path="Brief"),
    st.Page("pages/2_Evaluation.py", title="Evaluation", icon=":material/bar_chart:", url_path="Evaluation"),
    st.Page("pages/3_Ingestion.py", title="Ingestion", icon=":material/cloud_download:", url_path="Ingestion"),
]).run()
