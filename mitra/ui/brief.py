"""The way to an analysis's brief from the Library and the chat's lock header: a link within the
app (the member stays signed in), to ``pages/4_Brief.py`` with the analysis in its query."""

from __future__ import annotations

import streamlit as st

from mitra.chat.labels import document_label
from mitra.ui.render import inert_markdown as inert

BRIEF_PAGE = "pages/4_Brief.py"


def brief_link(analysis_id: str) -> None:
    st.page_link(BRIEF_PAGE, label="Brief", icon=":material/summarize:", query_params={"analysis": analysis_id})


def lock_banner(analysis, documents) -> None:
    """The chat's lock header: the analysis, its Brief link, and its documents with their versions."""
    listed = ", ".join(document_label(d.document.doc_id, d.document.version) + (" (superseded)" if d.superseded else "")
                       for d in documents)
    with st.container(key="lock-banner"):
        left, right = st.columns([5, 1], vertical_alignment="center")
        left.markdown(f":material/lock: Locked on `{inert(analysis.id)}` — **{inert(analysis.title)}**")
        with right:
            brief_link(analysis.id)
        st.caption(listed or "no documents")
