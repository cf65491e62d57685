"""Questions beyond one passage and one analysis, on the public LHCb papers in
``../shared/data/lhcb`` (the papers are read from there, never copied: only the
questions and short gold facts below are ours). Three types, as the agentic-RAG papers
measure them (key-point coverage, abstention, synthesis across papers):

* ``MULTIPART``: one paper, one question asking 2–3 things; each part has its own gold
  facts, and three questions have one part the paper cannot answer (no facts; its
  ``absent`` words are not in the paper), to measure abstention per part.
* ``ACROSS``: a question whose answer lies in 2–3 papers measuring the same thing (γ,
  charm mixing, A_Γ, the Bs→K+K− lifetime, φs, long-lived particles, Ωc0, Δms), facts
  per paper.
* ``COMPARE``: the same question put to two related papers (two γ modes, Run 1 against
  a later update), facts per paper.

A fact is a short phrase or number the answer must contain as
``answer_quality.facts_present`` checks it (every stemmed word and every number);
``tests/integration/answer/test_beyond_questions.py`` checks each against its paper's text.

``beyond_set`` is the knowledge base: these papers in full text and the other LHCb
abstracts as routing distractors (abstracts only: no passage of theirs can be cited).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.corpora import BenchmarkSet
from benchmarks.corpora.lhcb import iter_papers


def analysis_id(arxiv_id: str) -> str:
    return f"LHCb-{arxiv_id}"


@dataclass(frozen=True)
class Part:
    """One part of a multi-part question, asked on its own as ``question``."""

    question: str
    facts: tuple[str, ...]
    absent: tuple[str, ...] = ()  # for a part the paper cannot answer: words its text never uses

    @property
    def answerable(self) -> bool:
        return bool(self.facts)


@dataclass(frozen=True)
class MultiPartQuestion:
    arxiv_id: str
    question: str
    parts: tuple[Part, ...]


@dataclass(frozen=True)
class AnalysesQuestion:
    """A question answered from several papers (across) or in each of two (compare)."""

    question: str
    facts: dict[str, tuple[str, ...]] = field(hash=False)  # arxiv id -> the facts its paper gives

    @property
    def arxiv_ids(self) -> list[str]:
        return list(self.facts)


MULTIPART = (
    MultiPartQuestion("2410.21115", "Which LHCb data-taking runs does the B+- -> D K*(892)+- analysis use, and "
                      "what value of the CKM angle gamma does it find?", (
        Part("Which LHCb data-taking runs does the B+- -> D K*(892)+- analysis use?", ("Run 1", "Run 2")),
        Part("What value of the CKM angle gamma does the B+- -> D K*(892)+- analysis find?", ("63",)),
    )),
    MultiPartQuestion("1712.03220", "What integrated luminosity does the D0 -> K+pi- charm mixing measurement use, "
                      "what value of y' does it find, and what range of |q/p| is allowed?", (
        Part("What integrated luminosity does the D0 -> K+pi- charm mixing measurement use?", ("5.0",)),
        Part("What value of the mixing parameter y' is found from D0 -> K+pi- decays?", ("5.28",)),
        Part("What range of |q/p| is allowed by the D0 -> K+pi- charm mixing measurement?", ("1.00", "1.35")),
    )),
    MultiPartQuestion("1406.7204", "What is the effective lifetime of Bs0 -> K+K-, what is the effective lifetime of "
                      "B0 -> K+pi-, and how is the decay time acceptance corrected?", (
        Part("What is the measured effective lifetime of Bs0 -> K+K-?", ("1.407",)),
        Part("What is the measured effective lifetime of B0 -> K+pi-?", ("1.524",)),
        Part("How is the decay time acceptance corrected in the Bs0 -> K+K- effective lifetime measurement?",
             ("data-driven",)),
    )),
    MultiPartQuestion("1807.02024", "From which decays are the Omegac0 baryons taken, what Omegac0 lifetime is "
                      "measured, and what was the previous value from fixed-target experiments?", (
        Part("From which decays are the Omegac0 baryons of the lifetime measurement taken?", ("semileptonic",)),
        Part("What Omegac0 lifetime is measured?", ("268",)),
        Part("What was the Omegac0 lifetime measured by fixed-target experiments?", ("69",)),
    )),
    MultiPartQuestion("1402.2554", "What lifetime is measured for B+ -> J/psi K+, what lifetime for Lambdab0 -> J/psi "
                      "Lambda, and what value of DeltaGammad/Gammad is found?", (
        Part("What lifetime is measured in the decay B+ -> J/psi K+?", ("1.637",)),
        Part("What lifetime is measured in the decay Lambdab0 -> J/psi Lambda?", ("1.415",)),
        Part("What value of DeltaGammad/Gammad is found in the B0 system?", ("0.044",)),
    )),
    MultiPartQuestion("1304.4741", "In which year was the Bs0 -> Ds- pi+ data collected, what decay time resolution "
                      "is achieved, and what value of Delta ms is measured?", (
        Part("In which year was the data for the Delta ms measurement with Bs0 -> Ds- pi+ collected?", ("2011",)),
        Part("What average decay time resolution does the Delta ms measurement with Bs0 -> Ds- pi+ achieve?",
             ("44",)),
        Part("What value of the oscillation frequency Delta ms is measured with Bs0 -> Ds- pi+ decays?", ("17.768",)),
    )),
    MultiPartQuestion("1906.08350", "What are the measured lifetimes of the Lambdac+, the Xic+ and the Xic0 charm "
                      "baryons?", (
        Part("What is the measured lifetime of the Lambdac+ baryon?", ("203.5",)),
        Part("What is the measured lifetime of the Xic+ baryon?", ("456.8",)),
        Part("What is the measured lifetime of the Xic0 baryon?", ("154.5",)),
    )),
    # One part each that the paper cannot answer: the answer should say so for that part.
    MultiPartQuestion("1405.4140", "How is phis extracted from Bs0 -> J/psi pi+pi- decays, what value of phis is "
                      "found, and what precision on phis does Belle II expect?", (
        Part("How is phis extracted from Bs0 -> J/psi pi+pi- decays?", ("amplitude analysis",)),
        Part("What value of phis is found with Bs0 -> J/psi pi+pi- decays?", ("70", "68")),
        Part("What precision on phis does Belle II expect?", (), absent=("Belle",)),
    )),
    MultiPartQuestion("1309.6534", "What value of RD is found in the D0 -> K+pi- mixing measurement, what is x'2, "
                      "and what precision on y' is expected after the LHCb upgrade?", (
        Part("What value of RD is found in the D0 -> K+pi- mixing measurement?", ("3.568",)),
        Part("What value of x'2 is found in the D0 -> K+pi- mixing measurement?", ("5.5",)),
        Part("What precision on y' is expected after the LHCb upgrade?", (), absent=("upgrade",)),
    )),
    MultiPartQuestion("1412.3021", "What mass range of long-lived particles is searched, what integrated luminosity "
                      "is used, and what limit is set on invisible Higgs boson decays?", (
        Part("What mass range of long-lived particles decaying to jets is searched?", ("25", "50")),
        Part("What integrated luminosity does the search for long-lived particles decaying to jets use?", ("0.62",)),
        Part("What limit is set on invisible Higgs boson decays?", (), absent=("invisible",)),
    )),
)

ACROSS = (
    AnalysesQuestion("What value of the CKM angle gamma do LHCb measurements in B decays to D mesons find?",
                     {"2410.21115": ("63",), "2311.10434": ("92",), "2011.12041": ("44",)}),
    AnalysesQuestion("What values of the charm mixing parameters y' and x'2 are measured from the ratio of "
                     "D0 -> K+pi- to D0 -> K-pi+ decay rates?",
                     {"1309.6534": ("4.8", "5.5"), "1712.03220": ("5.28", "3.9")}),
    AnalysesQuestion("What values of the indirect CP violation parameter AGamma are measured in D0 decays to K+K-?",
                     {"1112.4698": ("5.9",), "1310.7201": ("0.35",)}),
    AnalysesQuestion("What is the measured effective lifetime of the Bs0 -> K+K- decay?",
                     {"1111.0521": ("1.440",), "1207.5993": ("1.455",), "1406.7204": ("1.407",)}),
    AnalysesQuestion("What value of the CP-violating phase phis is measured in Bs0 -> J/psi pi+pi- decays?",
                     {"1204.5675": ("0.019",), "1405.4140": ("70",)}),
    AnalysesQuestion("What lifetime ranges are covered by the LHCb searches for long-lived particles decaying "
                     "to jets from Higgs boson decays?",
                     {"1412.3021": ("200",), "1705.07332": ("500",), "1609.03124": ("100",)}),
    AnalysesQuestion("What lifetime of the Omegac0 baryon does LHCb measure, and how are the Omegac0 baryons produced?",
                     {"1807.02024": ("268", "semileptonic"), "2109.01334": ("prompt",)}),
    AnalysesQuestion("What value of the Bs0 oscillation frequency Delta ms does LHCb measure?",
                     {"1304.4741": ("17.768",), "1308.1302": ("17.93",), "2011.12041": ("17.757",)}),
)

COMPARE = (
    AnalysesQuestion("What value of the CKM angle gamma is measured?",
                     {"2410.21115": ("63",), "2311.10434": ("92",)}),
    AnalysesQuestion("What integrated luminosity is used, and what value of the mixing parameter y' is found?",
                     {"1309.6534": ("3", "4.8"), "1712.03220": ("5.0", "5.28")}),
    AnalysesQuestion("What value of AGamma is measured in D0 -> K+K- decays?",
                     {"1112.4698": ("5.9",), "1310.7201": ("0.35",)}),
    AnalysesQuestion("How is the bias of the decay time acceptance avoided or corrected in the Bs0 -> K+K- lifetime "
                     "measurement?",
                     {"1207.5993": ("neural networks",), "1406.7204": ("data-driven",)}),
    AnalysesQuestion("What value of phis is measured in Bs0 -> J/psi pi+pi- decays?",
                     {"1204.5675": ("0.019",), "1405.4140": ("70",)}),
    AnalysesQuestion("What integrated luminosity and what lifetime range does the search for long-lived particles "
                     "use?",
                     {"1412.3021": ("0.62", "200"), "1705.07332": ("2.0", "500")}),
    AnalysesQuestion("How are the Omegac0 baryons used for the lifetime measurement produced?",
                     {"1807.02024": ("semileptonic",), "2109.01334": ("prompt",)}),
    AnalysesQuestion("What value of Delta ms is measured, and from which decays?",
                     {"1304.4741": ("17.768",), "1308.1302": ("17.93", "semileptonic")}),
)


def arxiv_ids() -> list[str]:
    """Every paper a question is about, in first-use order."""
    ids = [q.arxiv_id for q in MULTIPART] + [a for q in ACROSS + COMPARE for a in q.arxiv_ids]
    return list(dict.fromkeys(ids))


def beyond_set(root: Path, distractors: int | None = None) -> BenchmarkSet:
    """The questions' papers in full text and the other abstracts (the first
    ``distractors`` of them, or all) for routing to choose among."""
    needed = set(arxiv_ids())
    papers = list(iter_papers(root))
    others = [p for p in papers if p.arxiv_id not in needed][:distractors]
    return BenchmarkSet(name="lhcb-beyond",
                        records=[p.record(full_text=True) for p in papers if p.arxiv_id in needed]
                        + [p.record(full_text=False) for p in others])
