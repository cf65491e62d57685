"""Brief: an analysis at a glance (``mitra.brief``), as kept with its generation; each value,
section and term opens the page it is stated on, highlighted. ``?analysis=ID`` opens one."""

from __future__ import annotations

import streamlit as st

from mitra import ui
from mitra.brief.build import read_brief
from mitra.brief.questions import chat_link
from mitra.core.types import Hit
from mitra.ui.render import inert_markdown

st.set_page_config(page_title="MITRA · Brief", page_icon=":material/summarize:", layout="wide")
ui.member()


def cite(analysis_id: str, place, key: str) -> None:
    """The page (or section) its line is stated on, the line highlighted, behind a switch."""
    chunk = ui.kb().get_chunks(analysis_id, [place.chunk_id]).get(place.chunk_id) if place else None
    if chunk is None:
        return
    record = ui.documents_by_version(analysis_id).get((chunk.doc_id, chunk.version))
    hit = Hit(chunk=chunk.model_copy(update={"text": place.highlight or chunk.text}))
    ui.show_cited_source(record.document if record else None, hit, key)


def main() -> None:
    analyses = ui.kb().analyses()
    ids = [a.id for a in analyses]
    wanted = st.query_params.get("analysis")
    chosen = st.selectbox("Analysis", ids, index=ids.index(wanted) if wanted in ids else None,
                          placeholder="choose an analysis…")
    if wanted and wanted not in ids:
        st.warning(f"No analysis '{wanted}' you may read.", icon=":material/block:")
    if not chosen:
        return
    brief = read_brief(ui.kb(), chosen)
    if brief is None:
        st.info("No brief yet: it is built when the analysis is indexed.", icon=":material/hourglass:")
        return
    st.title(f":material/summarize: {inert_markdown(brief.analysis_id)}")
    st.markdown(f"**{inert_markdown(brief.title)}**")
    for d in brief.documents:
        st.caption(inert_markdown(f"{d.kind}: {d.title} · version {d.version}"
                                  + (f" (of {', '.join(d.versions)})" if len(d.versions) > 1 else "")))
    if brief.abstract:
        st.markdown(inert_markdown(brief.abstract))
    st.subheader("What it found")
    for i, v in enumerate(brief.values):
        label = f" · {v.label}" if v.label else ""
        changed = f" · changed: was {v.changed_from}" if v.changed_from else ""
        with st.container(key=f"brief-value-{i}"):
            st.markdown(f"**{inert_markdown(v.written)}**{inert_markdown(label + changed)} — {inert_markdown(v.sentence)}")
            cite(brief.analysis_id, v.place, f"value-{i}")
    st.subheader("How it is organised")
    for t, tree in enumerate(brief.trees):  # each section, and each term below, opens where it is stated
        with st.expander(inert_markdown(f"{tree.title} · version {tree.version}")):
            for s in tree.sections:
                st.markdown(f"{'&nbsp;' * 4 * (len(s.path) - 1)}**{inert_markdown(s.path[-1])}** — "
                            f"{inert_markdown(s.line)}")
            opened = st.selectbox("Open a section", range(len(tree.sections)), index=None, key=f"section-{t}",
                                  format_func=lambda i, tree=tree: " > ".join(tree.sections[i].path),
                                  placeholder="choose a section…")
            if opened is not None:
                cite(brief.analysis_id, tree.sections[opened].place, f"section-{t}-{opened}")
    st.subheader("Its vocabulary")
    if brief.vocabulary:
        st.dataframe([{"term": term.short, "means": term.long, "defined in": term.place.doc_id if term.place else "",
                       "page": term.place.page if term.place else None} for term in brief.vocabulary],
                     hide_index=True, width="stretch")
        defined = st.selectbox("Where is it defined?", range(len(brief.vocabulary)), index=None, key="term",
                               format_func=lambda i: brief.vocabulary[i].short, placeholder="choose a term…")
        if defined is not None:
            cite(brief.analysis_id, brief.vocabulary[defined].place, f"term-{defined}")
    st.subheader("Where to start")
    for q in brief.questions:
        st.markdown(f"- [{inert_markdown(q)}]({chat_link(brief.analysis_id, q)})")


with ui.user_errors():
    main()
