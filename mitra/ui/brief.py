"""The way to an analysis's brief from the Library and the chat's lock header: a link within the
app (the member stays signed in), to ``pages/4_Brief.py`` with the analysis in its query."""

from __future__ import annotations

import streamlit as st

BRIEF_PAGE = "pages/4_Brief.py"


def brief_link(analysis_id: str) -> None:
    st.page_link(BRIEF_PAGE, label="Brief", icon=":material/summarize:", query_params={"analysis": analysis_id})
