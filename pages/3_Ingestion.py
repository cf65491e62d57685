"""Ingestion: the manifest's last run, and per-file download, extraction and indexing status."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from mitra import ui
from mitra.core.types import version_label
from mitra.ui.auth import require_admin

st.set_page_config(page_title="MITRA · Ingestion", page_icon=":material/cloud_download:", layout="wide")
require_admin(ui.member(), ui.settings())
st.title(":material/cloud_download: Ingestion")


def main() -> None:
    from ingest.sources.manifest import DownloadStatus, Manifest, StageStatus

    path = ui.settings().manifest_path
    if not path.is_file():
        st.info(
            f"No ingestion has run yet: there is no manifest at `{path}`.\n\n"
            "Crawl the document portal with `mitra ingest crawl --help`; the manifest records every file it fetches.",
            icon=":material/inbox:",
        )
        return
    with Manifest(path) as manifest:
        analyses, versions = manifest.analyses(), manifest.versions()
    if not versions:
        st.info("The manifest exists but lists no documents yet.", icon=":material/inbox:")
        return
    last = max(v.seen_at for v in versions)
    failed = [v for v in versions if v.status is DownloadStatus.failed]
    stage_failed = [v for v in versions if StageStatus.failed in (v.extract_status, v.index_status)]
    indexed = [v for v in versions if v.index_status is StageStatus.done]
    st.caption(f"Last run {last:%Y-%m-%d %H:%M} UTC · manifest `{path}`")
    cols = st.columns(4)
    cols[0].metric("analyses", len(analyses))
    cols[1].metric("files", len(versions))
    cols[2].metric("indexed", len(indexed))
    cols[3].metric("errors", len(failed) + len(stage_failed))
    only_problems = st.toggle("Only files with errors", value=bool(failed or stage_failed))
    rows = [
        {
            "analysis": v.analysis_id,
            "document": v.doc_id,
            "version": version_label(v.version),  # as citations name it: v14
            "download": v.status.value,
            "extract": v.extract_status.value,
            "index": v.index_status.value,
            "error": v.error or v.extract_error or v.index_error or "",
            "title": v.title,
            "size (kB)": round(v.size / 1024) if v.size else None,
            "downloaded": v.downloaded_at,
            "file": str(v.path) if v.path else "",
        }
        for v in versions
        if not only_problems or v in failed or v in stage_failed
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


with ui.user_errors():
    main()
