"""Questions about the ORION demo corpus for ``benchmarks/answer_quality.py``, written for
it from the corpus text (demo/corpus/*.yaml: the notes, HIG-24-001's wiki topic and its
talk). Four kinds, each asked inside a locked analysis:

* ``answerable``: the locked analysis states the answer; ``facts`` are what a correct answer
  contains (each fact: its words and numbers, matched after the BM25 normalisation);
* ``off-topic``: nothing to do with physics analyses;
* ``other-analysis``: about another analysis of the library (``expected`` names it);
* ``not-in-lock``: on the locked analysis's topic, but its documents do not say.
"""

from __future__ import annotations

from pydantic import BaseModel


class DemoQuestion(BaseModel):
    kind: str
    locked: str
    question: str
    facts: list[str] = []
    expected: str | None = None  # other-analysis: the analysis it is about


def _answerable(locked: str, question: str, *facts: str) -> DemoQuestion:
    return DemoQuestion(kind="answerable", locked=locked, question=question, facts=list(facts))


ANSWERABLE = [
    _answerable("EXO-24-003", "What is the dominant background in the signal region?", "Z", "65%"),
    _answerable("EXO-24-003", "What pTmiss threshold does the signal region require?", "250 GeV"),
    _answerable("EXO-24-003", "What trigger threshold is used for photon control-region events?", "200 GeV"),
    _answerable("HIG-24-001", "What integrated luminosity does the search use?", "61.9"),
    _answerable("HIG-24-001", "What observed significance did the previous ORION result report?", "1.6"),
    _answerable("HIG-24-001", "Which function describes the signal shape in the fit?", "Crystal Ball"),
    # from the analysis's wiki topic and the talk attached to it, not from its notes
    _answerable("HIG-24-001", "Which software release reproduces the results of the analysis?", "ORION_14_0_7"),
    _answerable("HIG-24-001", "How many signal events does the VBF category expect with the first 2024 data?",
                "37.6"),
    _answerable("HIG-24-007", "What is the largest background in the two same-sign lepton channels?", "nonprompt"),
    _answerable("HIG-24-007", "Which algorithm identifies hadronic tau decays?", "DeepTau"),
    _answerable("HIG-24-007", "What cross section is the ttH signal normalised to?", "570 fb"),
    _answerable("SMP-24-002", "What does the global electroweak fit predict for the W boson mass?", "80 353"),
    _answerable("SMP-24-002", "What is the largest background?", "Z"),
    _answerable("SMP-24-002", "How many events does the selected sample contain?", "118 million"),
    _answerable("BPH-24-005", "What is the dominant background after the BDT selection?", "combinatorial"),
    _answerable("BPH-24-005", "What does the standard model predict for the Bs to mumu branching fraction?", "3.66"),
    _answerable("BPH-24-005", "What transverse momentum must the triggered muons have?", "4 GeV"),
]

OFF_TOPIC_QUESTIONS = [
    "How long should I boil an egg for a soft yolk?",
    "What is the capital of Australia?",
    "Who won the football world cup in 2018?",
    "How do I reset my email password?",
    "What is a good recipe for banana bread?",
    "Which programming language is best for building websites?",
    "What time does the cafeteria open on Sundays?",
    "Can you recommend a hiking trail in the Alps?",
    "What is the exchange rate between euros and dollars today?",
    "How do I fix a flat bicycle tyre?",
]
_LOCKS = ["EXO-24-003", "HIG-24-001", "HIG-24-007", "SMP-24-002", "BPH-24-005"]
OFF_TOPIC = [DemoQuestion(kind="off-topic", locked=_LOCKS[i % 5], question=q) for i, q in enumerate(OFF_TOPIC_QUESTIONS)]

OTHER_ANALYSIS = [
    DemoQuestion(kind="other-analysis", locked=locked, question=question, expected=expected)
    for locked, question, expected in [
        ("EXO-24-003", "What value of the W boson mass was measured?", "SMP-24-002"),
        ("EXO-24-003", "What is the measured branching fraction of Bs to mumu?", "BPH-24-005"),
        ("HIG-24-001", "What is the ttH signal strength in multilepton final states?", "HIG-24-007"),
        ("HIG-24-001", "Which dark matter mediator masses are excluded by the monojet search?", "EXO-24-003"),
        ("SMP-24-002", "What is the observed significance of the H to mumu excess?", "HIG-24-001"),
        ("SMP-24-002", "What is the effective lifetime of the Bs to mumu decay?", "BPH-24-005"),
        ("BPH-24-005", "How is the nonprompt lepton background estimated in the ttH multilepton analysis?", "HIG-24-007"),
        ("BPH-24-005", "What is the dominant background in the monojet dark matter search?", "EXO-24-003"),
        ("HIG-24-007", "How is the W boson mass extracted from the muon pT spectrum?", "SMP-24-002"),
        ("HIG-24-007", "What limits are set on invisible Higgs boson decays in the monojet search?", "EXO-24-003"),
    ]
]

NOT_IN_LOCK = [
    DemoQuestion(kind="not-in-lock", locked=locked, question=question)
    for locked, question in [
        ("EXO-24-003", "What is the electron identification efficiency in the signal region?"),
        ("HIG-24-001", "What is the hadronic tau fake rate used in the analysis?"),
        ("SMP-24-002", "What is the measured top quark mass?"),
        ("BPH-24-005", "What jet energy resolution is achieved at 1 TeV?"),
        ("HIG-24-007", "What is the photon energy scale uncertainty?"),
    ]
]

DEMO_QUESTIONS = ANSWERABLE + OFF_TOPIC + OTHER_ANALYSIS + NOT_IN_LOCK
