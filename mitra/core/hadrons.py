"""One spelling for hadron names and decays, for ``mitra.core.text.tokenize``.

Papers, notes and questions name one decay many ways: "B0s → K+K−", "Bs0 -> K+K-",
"$B^0_s \\to K^+K^-$", and LHCb's LaTeX macros as the text layer keeps them, "BsToKK" or
"tauBsToKK". Without one spelling, BM25 and the value ranking see no shared word between a
question and the passage that answers it. Here a macro decay becomes its particles ("bs k k"),
and the flavour and charge decorations of one hadron written in any order become one token
(b0s, bs0, bs -> bs; lambda0b, lambdab0, lb -> lambdab; K*0, K^{*0}, Kst -> kstar; Δms,
\\dms -> delta ms).
"""

from __future__ import annotations

import re
from functools import lru_cache

# LHCb macro symbols (the collaboration's LaTeX template) -> the tokens standard notation gives.
_SYMBOLS = {
    "bs": "Bs Bsb Bsbar Bsz",
    "b0": "Bd Bdb Bdbar Bz Bzb Bzero B0",
    "b": "B Bu Bp Bm Bpm",
    "bc": "Bc Bcp Bcm",
    "lambdab": "Lb Lbbar Lambdab",
    "lambdac": "Lc Lcp Lcbar Lambdac",
    "lambda": "Lz L Lambda",
    "xib": "Xib Xibm Xibz Xibzero",
    "xicc": "Xicc Xiccp Xiccpp",
    "xic": "Xic Xicp Xicz Xiczero",
    "xi": "Xi Xim Xiz",
    "omegab": "Omegab Ob",
    "omegac": "Omegac Omegacz Oc",
    "omega": "Omega Om",
    "sigmab": "Sigmab",
    "sigmac": "Sigmac Sigmacpp",
    "sigma": "Sigma",
    "d0": "Dz Dzb Dzbar Dzero D0",
    "ds": "Ds Dsp Dsm Dspm",
    "dstar": "Dst Dstar Dstp Dstm Dstz Dstpm Dstarp Dstarm Dstarz Dstarpm Dstarzb Dstarb",
    "d": "D Dp Dm Dpm",
    "j psi": "JPsi Jpsi JPsione Jpsione Jpsis",
    "psi 2s": "Psitwos psitwos psipr",
    "psi": "Psi psi",
    "chic0": "chiczero Chiczero",
    "chic1 3872": "chiconex",
    "chic1": "chicone Chicone",
    "chic2": "chictwo Chictwo",
    "chic": "Chic chic",
    "chib1": "chibone",
    "chib2": "chibtwo",
    "upsilon 1s": "YoneS Y1S",
    "upsilon 2s": "YtwoS Y2S",
    "upsilon 3s": "YthreeS Y3S",
    "etac": "Etac etac",
    "kstar": "Kst Kstar Kstz Kstp Kstm Kstb Kstarz Kstarzb Kstarb Kstarp Kstarm Kstarpm",
    "ks long": "KSLL",  # LHCb's K0S from long (LL) and downstream (DD) tracks
    "ks downstream": "KSDD",
    "ks": "KS Ks KSz Kzs KS0",
    "kl": "KL",
    "k k": "kk",  # "Dkkmm": D0 -> K+K-mu+mu-
    "k": "K Kp Km Kpm Kz Kzb",
    "pi": "pi pip pim piz pipm Pi Pip Pim Piz",
    "p p": "pp ppbar Ppbar",
    "p": "p pbar Pbar P",
    "phi": "phi Phi phiz",
    "rho": "rho Rho rhoz rhop Rhop rhom rhopm",
    "eta": "eta Eta etap Etap etaprime etaz",
    "f0": "fzero fz",
    "gamma": "gamma Gamma g",
    "mu mu": "mm mumu MuMu",
    "mu": "mu Mu mup mum mun mupm",
    "e e": "ee",
    "e": "e E",
    "l l": "ll",
    "l": "l ell",
    "tau": "tau Tau taup taum",
    "nu": "nu Nu neu neub neue neum neut neueb neumb neutb",  # the neutrinos: ν, ν̄, νe, νμ, ντ
    "h h": "hh",
    "h": "h",
    "x": "X",
}
_TOKENS = {symbol: tokens for tokens, symbols in _SYMBOLS.items() for symbol in symbols.split()}
_LONGEST = max(map(len, _TOKENS))
# A macro decay: capitalised symbols, "To", symbols ("BdToKpi", "LbToLcpiTopKS", "BdTopipi"),
# after an optional lower-case quantity ("tauBsToKK") and before an optional "Decay".
_MACRO_DECAY = re.compile(r"\b([a-z]*)([A-Z][A-Za-z0-9]*?To[A-Za-z][A-Za-z0-9]*?)(Decay)?\b")
_TO = re.compile(r"To(?=[A-Za-z])")  # "LbToLcpiTopKS": Lc -> p KS
# After lower-casing: one hadron's flavour, charge and star in any order.
_HADRON = re.compile(
    r"\b(?:(?:(b|k)0?s0?|b0?d0?|bz|(lambda|xi|omega|sigma)0?(b|cc|c)0?|lb|lc|dzb?|jpsi|kst(?:ar)?)(?![a-z0-9])"
    r"|([kd])\s*\*\s*(?:\(\d{3,4}\))?\s*(?:0|\+|-|−|±)?"
    r"|(?:delta|d)(m|gamma|g)([sd])(?![a-z0-9]))"  # Δms, \dms, ΔΓs, \DGs: the mixing quantities
)
_FIXED = {"lb": "lambdab", "lc": "lambdac", "dz": "d0", "dzb": "d0", "bz": "b0", "jpsi": "j psi", "kst": "kstar",
          "kstar": "kstar"}


# A macro symbol standing alone, as LaTeX-to-text leaves ``\Bp\Kp\pip\pim`` ("Bp Kp pip pim",
# 10k "pip" in the 780 LHCb papers): spelled as its tokens. Case-sensitive, two letters or more,
# and not one that is also a word or unit of its own ("mm", "pp", "ll", "ee").
_ALONE = sorted((s for s, tokens in _TOKENS.items() if len(s) > 1 and s.lower() != tokens.replace(" ", "")
                 and s not in ("mm", "pp", "ll", "ee", "hh")), key=len, reverse=True)
_FIRST_LETTERS = "".join(sorted({s[0] for s in _ALONE}))  # looked ahead for first: 3x faster
# followed by no charge or star ("pip-" is π+ then a sign), but "->" may follow: "YtwoS->mumu"
_MACRO_SYMBOL = re.compile(r"(?:\\|(?<!\w))(?=[" + _FIRST_LETTERS + r"])(" + "|".join(_ALONE)
                           + r")(?![\w+−*]|-(?!>))")


# A decay macro written without "To" ("Bsmm", "KsPiPi (KsKK)", "Bpimumu", "LbpKmumu"): a capitalised
# word of four letters or more that splits wholly into two symbols or more. Not where a single "e",
# "l" or "g" makes the split ("Belle", "Pile", "Bugg"), nor in capitals throughout ("KEKB", "DBLP").
# 93 such words in the 780 LHCb papers; these rules leave out the 11 that are words or names.
_GLUED = re.compile(r"(?:\\|(?<![\\\w]))(?=[" + "".join(sorted({s[0] for s in _TOKENS if s[0].isupper()}))
                     + r"])([A-Z](?=[A-Za-z]*[a-z])[A-Za-z]{3,})\b")
_NOT_ALONE = frozenset({"e", "E", "l", "ell", "g", "pp"})  # "pp" of "Dppmm" is π+π−, not two protons
_ENGLISH = frozenset({"Deep"})  # words that split wholly into symbols by the rules above ("D", "ee"… "p")


def _glued_decay(match: re.Match) -> str:
    word = match.group(1)
    symbols = _symbols(word) if word not in _TOKENS else None
    if not symbols or len(symbols) < 2 or _NOT_ALONE & set(symbols) or word in _ENGLISH:
        return match.group()
    return " ".join(_TOKENS[s] for s in symbols)


def particle_words() -> frozenset[str]:
    """The particles' names as the macros spell them ("bs", "kstar", "j psi"), before stemming."""
    return frozenset(word for tokens in _SYMBOLS.values() for word in tokens.split())


def spell_macro_decays(text: str) -> str:
    """``text`` with each macro decay, and each macro symbol standing alone, as its
    particles; anything unparsed is left as written."""
    if "To" in text:
        text = _MACRO_DECAY.sub(_decay_words, text)
    return _MACRO_SYMBOL.sub(lambda m: f" {_TOKENS[m.group(1)]} ", _GLUED.sub(_glued_decay, text))


def _decay_words(match: re.Match) -> str:
    sides = [_particles(side) for side in _TO.split(match.group(2))]
    if any(side is None for side in sides):
        return match.group(0)
    return " ".join(filter(None, [match.group(1), *(" ".join(side) for side in sides)]))  # type: ignore[arg-type]


def _particles(side: str) -> tuple[str, ...] | None:
    """A run of macro symbols split into their tokens ("Kpipi" -> k pi pi); None when no split parses."""
    symbols = _symbols(side)
    return None if symbols is None else tuple(_TOKENS[s] for s in symbols)


@lru_cache(maxsize=4096)
def _symbols(side: str) -> tuple[str, ...] | None:
    """A run of macro symbols split, longest symbol first where that parses ("Kpipi" -> K pi pi)."""
    if not side:
        return ()
    for n in range(min(_LONGEST, len(side)), 0, -1):
        if side[:n] in _TOKENS:
            rest = _symbols(side[n:])
            if rest is not None:
                return (side[:n], *rest)
    return None


# An antiparticle written in ASCII ("D0bar", "Dbar0", "Bs0bar", "K*bar0"): the bar is dropped, as
# the text layer drops an overline and LHCb's macros ("Dzb") drop it; "isobar" and "barrel" stay.
_BAR = re.compile(r"\b(b|bs|bd|bc|d|ds|k|k\s*\*|lambda|lambdab|lambdac|lb|lc|xi|xib|xic|sigma|omega)(0?)bar(0?)(?![a-z])")


# A lepton-universality ratio glued to its hadron ("R_K*", "RK*", LHCb's "\\RKst", "R_D*" as the
# scripts are glued): spelled as "R(K*)" is, apart, so R_K* is not R_K.
_RATIO = re.compile(r"\br([kd])(\s*\^?\s*\*0?|st(?:ar)?)?(?![a-z0-9*^])")


def one_hadron_spelling(text: str) -> str:
    """Lower-cased ``text`` with each hadron's decorations in one order (see the module)."""
    text = _RATIO.sub(lambda m: f"r {m.group(1)}{'star' if m.group(2) else ''} ", _BAR.sub(r"\1\2\3", text))
    return _HADRON.sub(_hadron, text)


def _hadron(match: re.Match) -> str:
    word = match.group(0)
    if match.group(1):
        return match.group(1) + "s"
    if match.group(2):
        return match.group(2) + match.group(3)
    if match.group(4):
        return match.group(4) + "star "
    if match.group(5):
        return f"delta {'m' if match.group(5) == 'm' else 'gamma'}{match.group(6)}"  # as "Delta m_s" glues
    if word.startswith("b"):
        return "b0"
    return _FIXED[word]


# Hadrons a follow-up may swap for one another ("… for the Bs to mumu …" + "And for the B0?").
_FAMILIES = ({"b0", "bs", "b", "bc"}, {"d0", "d", "ds", "dstar"}, {"lambdab", "xib", "omegab", "sigmab"},
             {"lambdac", "xic", "xicc", "omegac", "sigmac"}, {"k", "ks", "kl", "kstar"},
             {"chic0", "chic1", "chic2"}, {"chib0", "chib1", "chib2"})


def family(token: str) -> int | None:
    """Which family of alike hadrons a token (as ``tokenize`` spells it) belongs to, if any."""
    return next((i for i, members in enumerate(_FAMILIES) if token in members), None)
