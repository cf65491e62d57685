"""Sample data for tests: three small fictional analyses."""

from __future__ import annotations

import json
from pathlib import Path


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


# Three small fictional analyses: the same generic question ("dominant background")
# has a different answer in each, which is what locking on an analysis is for.
ANALYSES = [
    {
        "analysis_id": "HIG-24-001",
        "title": "Search for the Higgs boson decaying to two muons",
        "abstract": "A search for H to mumu decays in proton-proton collisions at 13 TeV with 138 fb-1. "
        "The observed significance is 3.0 standard deviations.",
        "documents": [
            {
                "doc_id": "AN-2024-001",
                "version": "1",
                "title": "Analysis note",
                "text": "# Introduction\nThe Higgs boson coupling to second-generation fermions is probed in the dimuon channel.\n\n"
                "# Backgrounds\nThe dominant background is Drell-Yan production of muon pairs, Z/gamma* to mumu, "
                "which is modelled with a fit to the dimuon invariant mass spectrum.\n\n"
                "Top quark pair production with two leptonic W decays is a smaller background in the VBF category.\n\n"
                "# Systematic uncertainties\nThe largest systematic uncertainty comes from the muon momentum scale.\n\n"
                "# Results\nThe observed signal strength is 1.19 +0.40 -0.39 relative to the standard model.",
            }
        ],
    },
    {
        "analysis_id": "EXO-24-002",
        "title": "Dark matter search in the monojet final state",
        "abstract": "A search for dark matter produced with an energetic jet and large missing transverse momentum. "
        "No excess is observed; limits are set on mediator masses.",
        "documents": [
            {
                "doc_id": "AN-2024-002",
                "version": "1",
                "title": "Analysis note",
                "text": "# Introduction\nDark matter particles escape the detector and appear as missing transverse momentum.\n\n"
                "# Backgrounds\nThe dominant background is Z boson production with decays to neutrinos, Z(nunu)+jets, "
                "estimated from dimuon and photon control regions.\n\n"
                "W(lnu)+jets events where the lepton is lost are the second largest background.\n\n"
                "# Results\nMediator masses below 1.9 TeV are excluded at 95% confidence level.",
            }
        ],
    },
    {
        "analysis_id": "SMP-24-003",
        "title": "Measurement of the W boson mass",
        "abstract": "The W boson mass is measured from the muon transverse momentum spectrum in W to mu nu decays.",
        "documents": [
            {
                "doc_id": "AN-2024-003",
                "version": "1",
                "title": "Analysis note",
                "text": "# Method\nThe muon pT spectrum is fitted with templates for different W mass hypotheses.\n\n"
                "# Systematic uncertainties\nThe dominant systematic uncertainty is the parton distribution function "
                "modelling, 9 MeV, followed by the pT(W) model.\n\n"
                "# Results\nThe W boson mass is measured to be 80354 +- 23 MeV.",
            }
        ],
    },
]
