"""How the next question is answered: in the locked analysis, across analyses, or side by side
in two the member picks (the sidebar's radio and selectors, and the pair they give)."""

from __future__ import annotations

import streamlit as st

from mitra import ui

MODES = {"one": "One analysis", "across": "Across analyses", "compare": "Side by side"}


def answer_mode() -> None:
    """How the next question is answered; side by side picks its two analyses among those
    the member may read."""
    mode = st.radio("Answer from", list(MODES), format_func=MODES.get, key="mode",
                    help="Across: one answer from the top routed analyses, each claim naming its analysis. "
                         "Side by side: the question answered in each of two analyses.")
    if mode != "compare":
        return
    names = {a.id: f"{a.id} — {a.title}" for a in ui.kb().analyses()}
    first = st.selectbox("First analysis", list(names), format_func=names.get, key="compare_first")
    others = partners(list(names), first)
    if st.session_state.get("compare_second") not in others:
        st.session_state.pop("compare_second", None)  # it was made the first: the next one instead
    st.selectbox("Second analysis", others, format_func=names.get, key="compare_second")


def compare_pair() -> tuple[str | None, str | None]:
    """The two analyses side by side: those chosen, else those the selectors show first. A
    question sent right after "Side by side" is picked can arrive before the selectors were
    ever drawn, and their keys do not exist yet."""
    ids = [a.id for a in ui.kb().analyses()]
    first = st.session_state.get("compare_first") or (ids[0] if ids else None)
    others = partners(ids, first)
    second = st.session_state.get("compare_second")
    return first, second if second in others else (others[0] if others else None)


def partners(ids: list[str], first: str | None) -> list[str]:
    """The analyses the second selector offers: any but the first (one beside itself compares nothing)."""
    return [i for i in ids if i != first]
