"""Evaluation: a saved ``mitra eval --out report.json``, or a run on an uploaded gold file,
shown as the paper's Tables 1 and 2 with bar charts per system and routing accuracy."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from mitra import ui
from mitra.ui.auth import require_admin
from mitra.evaluation.retrieval import TABLE1, TABLE2, EvalReport, GoldQuery, evaluate
from mitra.core.jsonl import read_jsonl
from mitra.core.settings import SYSTEMS
from mitra.ui.uploads import saved_upload

st.set_page_config(page_title="MITRA · Evaluation", page_icon=":material/bar_chart:", layout="wide")
require_admin(ui.member(), ui.settings())
st.title(":material/bar_chart: Retrieval evaluation")


def run_report(raw: bytes, name: str, systems: list[str]) -> EvalReport:
    with saved_upload(raw, name) as path:  # the browser's file name never becomes a path
        queries = read_jsonl(path, GoldQuery, name=name)
    with st.spinner(f"Evaluating {len(queries)} queries with {', '.join(systems)}…"):
        return evaluate(ui.reader(), queries, systems, gold_name=name)


def metric_frame(report: EvalReport, columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"query set": name, "system": system, **{c: metrics[c] for c in columns}}
            for name, by_system in report.systems.items()
            for system, metrics in by_system.items()
        ]
    )


def table(report: EvalReport, columns: list[str], caption: str) -> None:
    frame = metric_frame(report, columns)
    st.markdown(caption)
    if frame.empty:
        st.caption("No query had gold evidence, so there are no retrieval metrics.")
        return
    # Bold the best system per query set and metric, as in the paper.
    best = frame.groupby("query set")[columns].transform("max")
    styled = frame.style.format({c: "{:.2f}" for c in columns}).apply(
        lambda col: ["font-weight: bold" if v == b else "" for v, b in zip(col, best[col.name])], subset=columns
    )
    st.dataframe(styled, hide_index=True, width="stretch")
    long = frame.melt(id_vars=["query set", "system"], var_name="metric", value_name="value")
    chart = (
        alt.Chart(long)
        .mark_bar()
        .encode(
            x=alt.X("system:N", title=None, axis=alt.Axis(labels=False, ticks=False)),
            y=alt.Y("value:Q", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color("system:N"),
            column=alt.Column("metric:N", sort=columns, title=None),
            row=alt.Row("query set:N", title=None),
            tooltip=["query set", "system", "metric", alt.Tooltip("value:Q", format=".3f")],
        )
        .properties(width=70, height=160)
    )
    st.altair_chart(chart)


def routing(report: EvalReport) -> None:
    st.markdown("**Routing (tier 1)** — is the gold analysis the first proposal, or among the three shown?")
    frame = pd.DataFrame(
        [{"query set": name, "top-1": r["top1"], "top-3": r["top3"]} for name, r in report.routing.items()]
    )
    st.dataframe(frame.style.format({"top-1": "{:.2f}", "top-3": "{:.2f}"}), hide_index=True)
    long = frame.melt(id_vars=["query set"], var_name="accuracy", value_name="value")
    st.altair_chart(
        alt.Chart(long)
        .mark_bar()
        .encode(
            x=alt.X("value:Q", scale=alt.Scale(domain=[0, 1])),
            y=alt.Y("accuracy:N", title=None),
            color="accuracy:N",
            row=alt.Row("query set:N", title=None),
        )
        .properties(height=60, width=420)
    )


def show(report: EvalReport) -> None:
    sets = ", ".join(f"**{name}** ({n} queries)" for name, n in report.query_sets.items())
    st.success(f"Gold: `{report.gold}` · {sets} · {report.date}", icon=":material/science:")
    st.caption(f"{report.skipped_without_gold} queries without gold evidence count for routing only · {report.reranker}")
    table(report, TABLE1, "**Table 1** — precision and recall at k")
    table(report, TABLE2, "**Table 2** — rank-aware metrics")
    routing(report)


def main() -> None:
    load, run = st.tabs(["Load a saved report", "Run on a gold file"])
    with load:
        uploaded = st.file_uploader("`mitra eval --out report.json`", type=["json"], key="report")
        if uploaded is not None:
            st.session_state.eval_report = EvalReport.uploaded(uploaded.getvalue(), uploaded.name)
    with run:
        gold = st.file_uploader('Gold JSONL: {"qid", "query", "analysis_id", "relevant_chunk_ids" | "evidence"}', type=["jsonl"], key="gold")
        systems = st.multiselect("Systems", SYSTEMS, default=list(SYSTEMS))
        if st.button("Run evaluation", type="primary", disabled=gold is None or not systems):
            st.session_state.eval_report = run_report(gold.getvalue(), gold.name, systems)
    report = st.session_state.get("eval_report")
    if report is None:
        st.info("Load a report or run an evaluation to see the tables.", icon=":material/query_stats:")
    else:
        show(report)


with ui.user_errors():
    main()
