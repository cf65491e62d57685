"""Physics notation in one spelling for BM25 and routing (``mitra.core.text.tokenize``)."""

import pytest

from mitra.core.text import clean_latex, tokenize


@pytest.mark.parametrize(
    "spellings",
    [
        ["H to mumu", "H → μμ", r"H \to \mu\mu", r"$H \rightarrow \mu^+\mu^-$", "H->µµ"],
        ["ttH", "tt̄H", r"t\bar{t}H", r"$t\overline{t}H$"],
        ["Higgs", "H"],
        ["muon", "mu", "μ", r"\mu"],
        ["B_s^0", r"B_{s}^{0}", "Bₛ⁰"],
        ["p_T", "pT", r"p_{\rm T}"],
        ["W → μν", r"W \to \mu\nu", "W to muon neutrino"],
        ["Λb", r"\Lambda_b", "Lambda_b"],
    ],
)
def test_notations_of_one_thing_tokenize_alike(spellings):
    first = tokenize(spellings[0])
    assert first
    for other in spellings[1:]:
        assert tokenize(other) == first, other


def test_prose_is_not_glued_or_renamed():
    assert tokenize("an _important_ point") == ["import", "point"]
    assert tokenize("the number museum") == ["number", "museum"]
    assert tokenize("the ee and bb channels") == ["e", "e", "b", "b", "channel"]


def test_clean_latex_glues_scripts_as_the_tokenizer_does():
    assert clean_latex(r"$B^0_s \to \mu^+\mu^-$ with $p_{T} > 5$") == "B0s -> mu+mu- with pT > 5"
    assert tokenize(clean_latex(r"$B^0_s$")) == tokenize("B^0_s")
