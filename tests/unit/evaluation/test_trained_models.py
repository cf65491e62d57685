"""The GPU training benchmark trains on the collaboration's other papers only: a paper
that any benchmark set asks about must never reach its training queries, or the figures
it reports would be measured on text the models were trained on."""

import gzip
import json
import lzma

from benchmarks.trained_models import prepare

SECTION = r"""\section{Event selection}
The signal candidates are selected with a boosted decision tree trained on simulated decays.
The background is dominated by random combinations of tracks from different vertices.
The selection efficiency is determined from simulation and corrected with calibration samples.
\section{Systematic uncertainties}
The largest systematic uncertainty is due to the limited size of the calibration samples.
The momentum scale is calibrated with resonances decaying to muon pairs in the same data.
The trigger efficiency is measured with a data-driven method on a control channel.
"""


def _paper(arxiv_id: str) -> dict:
    text = "\n\n".join(SECTION.replace("signal", f"signal {arxiv_id} {n}") for n in range(6))
    return {"arxiv_id": arxiv_id, "abstract": f"A measurement {arxiv_id}. It is new.", "text": text,
            "leaf_sections": []}


def test_a_paper_with_expert_questions_never_reaches_the_training_queries(tmp_path):
    lhcb = tmp_path / "data" / "lhcb"
    lhcb.mkdir(parents=True)
    with gzip.open(lhcb / "lhcb_papers.jsonl.gz", "wt") as handle:
        handle.writelines(json.dumps(_paper(i)) + "\n" for i in ("1111.0001", "1111.0002", "1111.0003"))
    (lhcb / "lhcb_expert_qa.json").write_text(json.dumps([{
        "arxiv_id": "1111.0002", "question": "What dominates the background?", "evidence_sentence_ranges": [],
        "evidence_text": [], "answerable": True}]))

    report = prepare(tmp_path, tmp_path / "out")

    with lzma.open(tmp_path / "out" / "queries.json.xz", "rt") as handle:
        rows = json.load(handle)["rows"]
    assert report["papers"] == 2 and report["queries"] == len(rows) > 0
    assert {r["paper"] for r in rows} == {"1111.0001", "1111.0003"}
    assert not any("1111.0002" in r["query"] + r["positive"] for r in rows)
