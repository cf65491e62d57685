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
        ["Λb", r"\Lambda_b", "Lambda_b", "Λ0b", r"\Lambda_b^0", "Lb"],
        # LHCb's decay macros as the text layer keeps them share every word with the notation
        ["Bs0 -> K+K-", "B0s → K+K−", r"$B^0_s \to K^+K^-$", "BsToKK", r"\BsToKK"],
        ["B0 → K+π−", "BdToKpi", r"B^0 \to K^+\pi^-"],
        ["B0 → π+π−", "BdTopipi", r"\BdTopipi"],  # products in lower case after "To"
        ["B0 → K*0 μ+μ−", r"$B^0\to K^{*0}\mu^+\mu^-$", "BdToKstmm"],
        ["Bs0 -> J/psi pi+pi-", "BsToJpsipipi", r"B_s^0 \to J/\psi \pi^+\pi^-"],
        # macro symbols standing alone, as LaTeX-to-text leaves "\Bp\Kp\pip\pim"
        ["B+ → K+π+π−", "Bp Kp pip pim", r"\Bp\Kp\pip\pim", r"$\Bp \to \Kp\pip\pim$"],
        ["B0 → K*0 μ+μ−", "Bz Kstarz mumu"],
        ["Ξ− π+", "Xim pip"],
        ["Ω0c", "Omegac0", r"\Omega_c^0"],
        ["K0S", "K_S^0", "KS"],
        ["Delta ms", "Δms", r"\Delta m_s", r"\dms"],
        ["χc2 K0 π+", "chi_c2 K0 pi+", r"\chictwo K0 \pip"],  # LHCb 2304.14891: χc0 is not χc2
        ["chi_c0", "chiczero"],
        ["ψ(2S)", "psi(2S)", "Psitwos", r"\psitwos"],
        ["Υ(1S)", "Upsilon(1S)", "YoneS", r"\Y1S"],
        # an antiparticle in ASCII, as a member types it: the text layer and the macros drop the bar
        ["B0 → D0 π+ π−", "B0bar -> D0bar pi+ pi-", "Bzb -> Dzb pip pim", r"$\overline{B}^0 \to \overline{D}^0 \pi^+\pi^-$"],
        ["Bs0", "Bs0bar", "Bsbar"],
        ["K*0", "K*bar0", "K*0bar"],
        ["D0", "Dbar0", "D0bar"],
        # a lepton-universality ratio, its hadron glued on or not (LHCb 2212.09153 heads its columns "RKst")
        ["R(K*)", "R_K*", "RK*", "RKst", r"R_{K^{*0}}"],
        ["R(K)", "R_K", "RK"],
        ["R(D*)", "R_D*", "RDst"],
        # LHCb's charged macros as the text layer leaves them (820 "Dstarm", 1097 "mup", 145 "taup")
        ["B0 -> D*- tau+ nu", "Bz -> Dstarm taup neut", "B0 → D∗− τ+ ν"],
        ["mu+ mu-", "mup mum", "μ+μ−"],
        # collision systems written apart ("$p$Pb": 326 in the 780 papers, "Pb$p$" 217) and χ² as a macro
        ["pPb", "p Pb", "p-Pb"],
        ["Pbp", "Pb p"],
        ["chi2/ndf", "chisq/ndf", "χ2/ndf"],
        # a neutral charge glued onto the next particle (LHCb 2209.09840's "ρ(1450)0π+" against its row "rho(1450) 0 pi+")
        ["ρ(1450)0π+", "rho(1450) 0 pi+"],
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
    # a symbol that is also a unit or a word stays itself, as does one glued to a charge
    assert tokenize("5 mm from the pp collision point") == ["5", "mm", "pp", "collis", "point"]
    assert tokenize("Kp+ and pip-") == ["kp", "pip"]
    assert tokenize("the isobar model and the barrel") == ["isobar", "model", "barrel"]
    assert tokenize("R_K and R_K*") == ["r", "k", "r", "kstar"]  # two ratios, not one
    assert tokenize("the 3rd") == ["3rd"]
    assert tokenize("pp and p p collisions, 5 pb") == ["pp", "p", "p", "collis", "5", "pb"]


def test_clean_latex_glues_scripts_as_the_tokenizer_does():
    assert clean_latex(r"$B^0_s \to \mu^+\mu^-$ with $p_{T} > 5$") == "B0s -> mu+mu- with pT > 5"
    assert tokenize(clean_latex(r"$B^0_s$")) == tokenize("B^0_s")


def test_a_script_naming_a_particle_or_decay_is_its_own_words():
    """LHCb 1509.02372's cross-section table row "$\\upsigma^{\\YtwoS\\to\\mumu}$ & … 837 …" had
    read "sigmaYtwoS->mumu": no Upsilon(2S) for a question naming it to find."""
    row = clean_latex(r"$\upsigma^{\YtwoS\to\mumu}$ & $837 \pm 2 \pm 25$ \\")
    assert row.startswith("sigma YtwoS -> mumu |")
    assert {"upsilon", "2s"} <= set(tokenize(row)) and {"upsilon", "2s"} <= set(tokenize("YtwoS->mumu"))
    assert clean_latex(r"$p_{T}^{miss}$ and $\Lambda_{b}^{0}$ and $D_{s1}^{+}$") == "pT miss and Lambdab0 and Ds1+"


def test_a_macro_decay_keeps_its_quantity_and_only_parsed_words_change():
    assert tokenize("tauBsToKK") == ["tau", "bs", "k", "k"]
    assert tokenize("LbToLcpiTopKS") == ["lambdab", "lambdac", "pi", "p", "ks"]  # a chain: Lc -> p KS
    # camel case that is no decay stays one word
    assert tokenize("HowTo GoTo") == ["howto", "goto"]


def test_a_macro_decay_glued_without_to_reads_as_its_particles():
    """LHCb 2111.03327 and 1604.01525 write "Dkkmm", "KsPiPi (KsKK)"; 1703.05747 "Bsmm" and "Bdmm":
    a question's "KS K+K−" or "B0s → μ+μ−" shared no word with them. Words and names stay."""
    assert tokenize("the KsPiPi (KsKK) candidates") == ["ks", "pi", "pi", "ks", "k", "k", "candid"]
    assert tokenize("Bsmm and \\Bdmm") == tokenize("Bs -> mu mu and B0 -> mu mu")
    assert tokenize("LbpKmumu") == ["lambdab", "p", "k", "muon", "muon"]
    assert tokenize("Dkkmm") == ["d", "k", "k", "muon", "muon"]
    for word in ("Belle", "BELLE", "Bellee", "Bugg", "Pile", "Deep", "Deppe", "LEDs", "KEKB", "XeXe"):
        assert len(tokenize(word)) == 1, word


def test_a_spanning_cell_and_a_plus_minus_column_read_as_one_cell_each():
    """LHCb's "\\multicolumn{3}{c}{Start}" over "$ 4467.1 $&$\\pm$&$7.6 $": the header had read
    "c Start", a value and its uncertainty three cells, so no header named the right column."""
    from ingest.chunk.tables import latex_rows

    rows = latex_rows(r"Fit parameter & \multicolumn{3}{c}{Start} & \multicolumn{3}{c}{Baseline} \\"
                      r" $\XSone \text{ mass [MeV]}$ & \multicolumn{3}{c}{$-$} & $ 4474.5 $&$\pm$&$6.9 $ \\")
    assert rows == ["Fit parameter | Start | Baseline", "XSone mass [MeV] | - | 4474.5 +- 6.9"]


def test_a_latex_row_of_plain_words_and_numbers_is_split_into_cells():
    """LHCb 2310.04277's uncertainty table: a row with no macro or maths ("Fixed yield ratios &
    0.09 & 0.03") kept its "&", so its cells had no column, beside rows that had one."""
    from ingest.chunk.tables import latex_rows

    assert latex_rows(r"Source & $\sigma(x)$ \\ Fixed yield ratios & 0.09\\ $\Lb$ background & 0.97\\") == [
        "Source | sigma(x)", "Fixed yield ratios | 0.09", "Lb background | 0.97"]


def test_upright_greek_letters_read_as_the_letters():
    """LHCb writes "\\updelta m_U" (upgreek): it had read as the word "updelta"."""
    assert clean_latex(r"the $\updelta m_{\rm U}<0$ hypothesis, $\upmu$m and $\uppi^+$") == \
        "the delta mU<0 hypothesis, mu m and pi+"
    assert clean_latex(r"the $\Upsilon$ and \upsilon") == "the Upsilon and upsilon"


def test_lhcb_macros_a_reader_would_spell_out():
    assert clean_latex(r"$N_\sig$ in the \lqsq bin, $\rdstarm_{\rm comb} = 0.267$") == \
        "N signal in the low-q2 bin, R(D*-) comb = 0.267"
    assert tokenize("Together in Tokyo") == ["togeth", "tokyo"]  # "To" inside a word is no decay


def test_a_tables_rules_and_colours_leave_no_words():
    """LHCb writes "\\cline{2-6}" under a spanning header: it left "2-6" on the next header's
    first cell ("2-6 Yield | Full | 1 | …"), read as a number."""
    latex = (r"& \multicolumn{5}{c}{Region} \\ \cline{2-6} Yield & Full & 1 \\ \cmidrule(lr){2-3} "
             r"\specialrule{.1em}{.05em}{.05em} \rowcolor[gray]{0.9} A & \textcolor{red}{12} & {\color{blue} 3} \\")
    assert clean_latex(latex) == "| Region Yield | Full | 1 A | 12 | 3"
    # a command that only begins like one is kept as a word
    assert clean_latex(r"\colorbox{yellow}{x} \citeauthor{Y}") == "colorbox yellow x citeauthor Y"
