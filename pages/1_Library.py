"""Library: browse analyses → documents → versions, with chunk counts and last ingest."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from mitra import ui
from mitra.models.adapted import current_manifest
from mitra.store.index_files import published_model
from mitra.ui.render import inert_markdown
from mitra.ui.brief import brief_link
from mitra.chat.labels import document_label
from mitra.chat.session import find_analyses
from mitra.core.types import version_label

st.set_page_config(page_title="MITRA · Library", page_icon=":material/library_books:", layout="wide")
ui.member()
st.title(":material/library_books: Library")


def document_table(analysis_id: str) -> None:
    records = ui.kb().documents(analysis_id)
    if not records:
        st.caption("No documents indexed for this analysis.")
        return
    st.dataframe(
        pd.DataFrame(
            {
                "document": r.document.doc_id,
                "version": version_label(r.document.version),
                "title": r.document.title,
                "status": "superseded" if r.superseded else "current",
                "passages": r.n_chunks,
                "length": r.document.extent or "—",  # a web page or a Word file has no pages
                "indexed": r.indexed_at,
                "original": "on this machine" if (path := ui.original_file(r.document)) and path.is_file() else "—",
            }
            for r in records
        ),
        hide_index=True,
        width="stretch",
    )
    labels = {document_label(r.document.doc_id, r.document.version): r for r in records}
    chosen = st.selectbox("Read a document", list(labels), key=f"read-{analysis_id}", index=None, placeholder="choose a version…")
    if chosen:
        document = labels[chosen].document
        ui.offer_original(document, analysis_id)  # the kept copy, not the portal's address: the portal may be gone
        chunks = [
            c for c in ui.kb().chunks(analysis_id) if c.doc_id == document.doc_id and c.version == document.version
        ]
        for c in chunks:
            head = " · ".join(p for p in (c.section_path, f"#{c.anchor}" if c.anchor else "", c.page_label,
                                          c.kind.value if c.kind.value != "body" else "") if p)
            if head:
                st.caption(inert_markdown(head))
            st.markdown(inert_markdown(c.text))


def main() -> None:
    analyses = ui.kb().analyses()
    if not analyses:
        st.info("The knowledge base is empty: index analyses with `mitra index-jsonl FILE` or an ingestion run.", icon=":material/inbox:")
        return
    stats = ui.kb().stats()
    cols = st.columns(4)
    for col, (label, key) in zip(
        cols, (("analyses", "analyses"), ("documents", "documents"), ("versions", "document_versions"), ("passages", "current_chunks"))
    ):
        col.metric(label, stats[key])
    manifest = current_manifest(published_model(ui.settings()))
    st.caption(f":material/model_training: {manifest.summary()}" if manifest
               else ":material/model_training: no adapted reranker: `mitra adapt` trains one on this corpus")
    query = st.text_input("Search analyses by id or title", placeholder="e.g. HIG-24 or dark matter")
    shown = find_analyses(query, analyses) if query.strip() else analyses
    st.caption(f"{len(shown)} of {len(analyses)} analyses")
    for analysis in shown:
        with st.expander(f"**{inert_markdown(analysis.id)}** — {inert_markdown(analysis.title)}"):
            brief_link(analysis.id)
            if analysis.abstract:
                st.markdown(inert_markdown(analysis.abstract))
            document_table(analysis.id)


with ui.user_errors():
    main()
