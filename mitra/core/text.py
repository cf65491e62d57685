"""Text normalisation shared by indexing, querying and evaluation.

* ``clean_latex`` turns LaTeX source into words a tokenizer and an embedder can use.
* ``split_sentences`` is a small rule-based splitter aware of physics-paper
  abbreviations (Fig., Eq., Ref., e.g., et al.).
* ``tokenize`` is the one BM25 tokenizer used for both documents and queries:
  physics terms survive it (``B0``, ``13TeV``, ``pT``, ``Z->nunu``) because
  tokens are alphanumeric runs, not dictionary words.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from mitra.core.hadrons import one_hadron_spelling, spell_macro_decays

# Formatting commands whose arguments carry no words.
_DROP_WITH_ARG = (
    "label|ref|eqref|cref|Cref|cite|citep|citet|citealt|vspace|hspace|includegraphics|epsfig|"
    "bibliographystyle|bibliography|input|include|usepackage|documentclass|newcommand|"
    "renewcommand|def|setlength|addtolength|belowpdfbookmark|currentpdfbookmark|pdfbookmark|"
    "href|url|footnotesize|centerline|resizebox|scalebox|multicolumn|multirow|begin|end|"
    "hypersetup|graphicspath|affiliation|thanks|email|phantom|hphantom|vphantom|"
    # a table's rules and colours: "\\cline{2-6}" read "2-6" into a header's first cell
    "cline|addlinespace|color|textcolor|rowcolor|cellcolor|columncolor|arrayrulecolor|"
    r"cmidrule(?:\([a-z]*\))?|specialrule(?:\{[^{}]*\}){2}"
)
# Macros frequent in HEP papers whose meaning a reader would spell out.
_MACROS = {
    r"\mev": "MeV", r"\gev": "GeV", r"\tev": "TeV", r"\kev": "keV", r"\mevc": "MeV/c",
    r"\gevc": "GeV/c", r"\mevcc": "MeV/c2", r"\gevcc": "GeV/c2", r"\pt": "pT", r"\et": "ET",
    r"\invfb": "fb-1", r"\invpb": "pb-1", r"\fb": "fb-1", r"\lhcb": "LHCb", r"\lhc": "LHC",
    r"\sqs": "sqrt(s)", r"\etal": "et al.", r"\ie": "i.e.", r"\eg": "e.g.", r"\pp": "pp",
    r"\to": "->", r"\rightarrow": "->", r"\pm": "+-", r"\times": "x", r"\sim": "~",
    r"\approx": "~", r"\le": "<=", r"\ge": ">=", r"\leq": "<=", r"\geq": ">=",
    r"\percent": "%", r"\sig": "signal", r"\bkg": "background", r"\lqsq": "low-q2", r"\cqsq": "central-q2",
    r"\rdstar": "R(D*)", r"\rdstarm": "R(D*-)",
}
_MACRO_RE = re.compile(
    "(" + "|".join(re.escape(m) for m in sorted(_MACROS, key=len, reverse=True)) + r")(?![A-Za-z])"
)
_COMMENT_RE = re.compile(r"(?<!\\)%.*")
_DROP_RE = re.compile(r"\\(?:" + _DROP_WITH_ARG + r")(?![A-Za-z])\*?(?:\[[^\]]*\])?(?:\{[^{}]*\})?")
_ENV_FLOAT_OPTS = re.compile(r"^\s*\[[htbp!H]+\]")
# \begin{tabular}{lcr} and friends: the column spec is not words, nor "@{\hspace{0.5cm}}l" in it
# (braces nested two deep, and a space before it after a tabular: LHCb writes "\begin{tabular} {…}").
_BRACED = r"\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}"
_BEGIN_ARGS_RE = re.compile(r"\\begin\{(?:(?:tabular[*x]?|array|longtable)\}(?:\s*\[[^\]]*\])?(?:\s*" + _BRACED + r")+|"
                            r"[a-zA-Z*]+\}(?:\[[^\]]*\])?(?:" + _BRACED + r")*)")
# A cell spanning columns (its count and alignment are no words), and LHCb's "value & \pm &
# uncertainty" columns, each of which reads as one cell under the header that spans them.
_SPANNING_CELL = re.compile(r"\\multi(?:column|row)\{[^{}]*\}\{[^{}]*\}(" + _BRACED + ")")
_PLUS_MINUS_COLUMN = re.compile(r"\$?\s*&\s*\$?\s*\+-\s*\$?\s*&\s*\$?")
_PARTICLE_RE = re.compile(r"\\P(?!hi|si|i\b|r\b)([A-Z][A-Za-z]*|mu|e|gamma|pi|nu|tau|K)(?![a-z])")
_CMD_RE = re.compile(r"\\([A-Za-z]+)\*?")
# upgreek's upright letters: \updelta -> \delta, \upmu -> \mu (LHCb writes "\updelta m_U")
_UPRIGHT_GREEK = re.compile(r"\\up(?=(?:alpha|beta|gamma|delta|epsilon|varepsilon|zeta|eta|theta|iota|kappa|lambda|mu"
                            r"|nu|xi|pi|rho|sigma|tau|upsilon|phi|varphi|chi|psi|omega|Gamma|Delta|Theta|Lambda|Xi|Pi"
                            r"|Sigma|Upsilon|Phi|Psi|Omega)(?![A-Za-z]))")
# A sub- or superscript glued to its symbol: B^0_s -> B0s, p_{T} -> pT, \mu^+ -> mu+.
_SCRIPT = re.compile(r"(?<=[a-z0-9}+\-*])[_^](?:\{([^{}]*)\}|(?=[a-z0-9+\-*]))", re.IGNORECASE)


def _glue_scripts(text: str) -> str:
    return _SCRIPT.sub(_script_words, text)


_WORD_IN_SCRIPT = re.compile(r"[A-Za-z]{3}")


def _script_words(match: re.Match) -> str:
    """A script glued to its symbol, except one that holds a word (p_T^{miss} -> "pT miss",
    as a reader says it and writes it in a question; LHCb's "\\upsigma^{\\YtwoS\\to\\mumu}" ->
    "sigma YtwoS -> mumu", whose particle had read as part of "sigmaYtwoS")."""
    words = (match.group(1) or "").split()
    return " " + " ".join(words) if _WORD_IN_SCRIPT.search("".join(words)) else "".join(words)


_SPACE_CMDS = re.compile(r"\\[,;:! ]|~|\\\\(\[[^\]]*\])?")


def clean_latex(text: str) -> str:
    """Strip LaTeX markup, keep the words (including macro names, which are often
    particle names such as ``\\Kshort`` or ``\\PW``)."""
    if not any(mark in text for mark in ("\\", "$", "{", "~", "&")):  # "&": a table row of plain words
        return normalise_space(text)
    text = _COMMENT_RE.sub("", text)
    text = _ENV_FLOAT_OPTS.sub("", text)
    text = _MACRO_RE.sub(lambda m: " " + _MACROS[m.group(1)] + " ", text)
    text = _BEGIN_ARGS_RE.sub(" ", text)
    text = _SPANNING_CELL.sub(lambda m: m.group(1)[1:-1], text)  # \multicolumn{3}{c}{Start}: the cell "Start"
    text = _PLUS_MINUS_COLUMN.sub(" +- ", text)  # "$ 4467.1 $&$\pm$&$7.6 $": one cell, not three
    # Drop formatting commands with their arguments, repeatedly for nested cases.
    for _ in range(3):
        text, n = _DROP_RE.subn(" ", text)
        if not n:
            break
    text = _SPACE_CMDS.sub(" ", text)
    text = re.sub(r"(?<!\\)&", " | ", text)
    # Remaining commands: keep their name as a word (\Kshort -> Kshort, \rm -> rm is dropped below).
    # LHCb/PDG particle macros: \PW -> W, \Pmu -> mu (but \Phi, \Psi, \Pi are Greek).
    text = _PARTICLE_RE.sub(r"\\\1", text)
    text = _UPRIGHT_GREEK.sub(r"\\", text)
    # one word each, also where one follows another: \Kp\pip\pim -> "Kp pip pim" (K+ π+ π−), not "Kppippim"
    text = _CMD_RE.sub(lambda m: "" if m.group(1) in _STYLE_CMDS else m.group(1) + " " * text.startswith("\\", m.end()),
                       text)
    text = re.sub(r"[{}$^_]", " ", _glue_scripts(text))
    text = re.sub(r"\\([%&#])", r"\1", text)  # escaped characters are themselves
    text = text.replace("\\", " ")
    return normalise_space(text)


# Commands KaTeX (Streamlit's maths renderer) draws; inline maths using only these is
# kept as $...$ for people to read, anything else (collaboration macros) is flattened.
_KATEX_SAFE = frozenset(
    """alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi
    pi rho sigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Upsilon
    Phi Psi Omega pm mp to rightarrow leftarrow leftrightarrow times cdot sim approx simeq le ge
    leq geq ll gg ne neq equiv propto infty partial ell rm mathrm text textrm mathit mathbf it bf
    frac sqrt bar overline hat tilde vec dot prime left right sum int prod log ln exp min max""".split()
)
_INLINE_MATH = re.compile(r"(?<!\\)\$([^$]{1,200}?)(?<!\\)\$")
_PLACEHOLDER = re.compile(r"MITRAMATH(\d+)X")


def readable_latex(text: str) -> str:
    """Text for people: prose markup removed as in ``clean_latex``, but inline maths
    that KaTeX can draw kept as ``$...$`` so the app renders it."""
    kept: list[str] = []

    def protect(match: re.Match) -> str:
        body = match.group(1).strip()
        if body and set(re.findall(r"\\([A-Za-z]+)", body)) <= _KATEX_SAFE:
            kept.append(body)
            return f" MITRAMATH{len(kept) - 1}X "
        return match.group(0)

    cleaned = clean_latex(_INLINE_MATH.sub(protect, _COMMENT_RE.sub("", text)))
    return _PLACEHOLDER.sub(lambda m: f"${kept[int(m.group(1))]}$", cleaned)


# Cached: an index build reads each paragraph's maths three times (BM25, its vector, its
# sentence windows), and the same few $...$ recur across a corpus.
@lru_cache(maxsize=8192)
def math_to_words(text: str) -> str:
    """What BM25 and the embedder see of kept ``$...$`` maths: its words."""
    if "$" not in text:
        return text
    return normalise_space(_INLINE_MATH.sub(_maths_words, text))


def _maths_words(match: re.Match) -> str:
    body = _clean_maths(match.group(1))
    # "1.$19_{-0.39}^{+0.40}$": a text layer opened the maths after a decimal's point; one number
    glued = body[:1].isdigit() and _DECIMAL_POINT.search(match.string, max(0, match.start() - 24), match.start())
    return f"{'' if glued else ' '}{body} "


_DECIMAL_POINT = re.compile(r"(?<![\d.])\d+\.\Z")
_clean_maths = lru_cache(maxsize=65536)(clean_latex)  # short $...$ bodies only: documents are not kept


_STYLE_CMDS = {
    "rm", "mathrm", "textrm", "it", "bf", "textbf", "textit", "emph", "mathit", "mathbf", "mathcal",
    "boldsymbol", "boldmath", "unboldmath", "small", "large", "Large", "normalsize", "tiny", "noindent", "centering",
    "hline", "toprule", "midrule", "bottomrule", "left", "right", "big", "Big", "bigg",
    "text", "mbox", "hbox", "ensuremath", "displaystyle", "quad", "qquad", "item", "caption",
    "newline", "linebreak", "par", "vfill", "hfill", "bigskip", "medskip", "smallskip",
    "raggedright", "clearpage", "newpage", "maketitle", "tabindent", "phantom", "sf", "tt",
    "textsc", "textsf", "texttt", "mathsf", "mathbb", "operatorname", "frac", "sqrt", "overline",
    "bar", "hat", "tilde", "vec", "dot", "prime", "nonumber", "limits", "footnote",
    "section", "subsection", "subsubsection", "chapter",
}


def normalise_space(text: str) -> str:
    text = re.sub(r"[ \t\r\f\v]+", " ", text)
    text = re.sub(r" *\n *", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip()


_BOUNDARY = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\[(\"'$\\])")
# A piece ending like this did not end a sentence: "see Fig. 3", "Smith et al. (2020)", "J. Doe".
_NOT_AN_END = re.compile(
    r"(?:\b(?:Figs?|Eqs?|Refs?|Secs?|Tabs?|Table|App|Ch|Nos?|al|cf|vs|etc|approx|resp|Vol|pp|ca|viz)"
    r"|\be\.g|\bi\.e|\bw\.r\.t|(?:^|\s)[A-Z])\.$"
)


def split_sentences(text: str) -> list[str]:
    """Split at ., ! or ? followed by space and a capital/digit, except after
    abbreviations (Fig., Eq., et al., e.g., single initials)."""
    sentences: list[str] = []
    for piece in _BOUNDARY.split(normalise_space(text).replace("\n", " ")):
        if sentences and _NOT_AN_END.search(sentences[-1]):
            sentences[-1] += " " + piece
        elif piece.strip():
            sentences.append(piece.strip())
    return sentences


def sentence_end(text: str, start: int = 0) -> int:
    """Where the sentence running at ``start`` ends (just past its full stop), or the text's end;
    the same boundaries ``split_sentences`` reads."""
    for boundary in _BOUNDARY.finditer(text, start):
        if not _NOT_AN_END.search(text, 0, boundary.start()):
            return boundary.start()
    return len(text)


def sentence_windows(text: str, words: int) -> list[str]:
    """``text``'s sentences in consecutive runs of at most ``words`` words (a longer
    sentence is a run of its own)."""
    runs: list[list[str]] = []
    size = 0
    for sentence in split_sentences(text):
        n = len(sentence.split())
        if not runs or size + n > words:
            runs.append([])
            size = 0
        runs[-1].append(sentence)
        size += n
    return [" ".join(run) for run in runs]


# Kept deliberately small: question words and function words only. Physics
# words such as "background", "signal" or "uncertainty" must stay searchable.
STOPWORDS = frozenset(
    """a an and are as at be been being but by can could did do does for from had has have how
    i if in into is it its itself may might of on or our over so such than that the their them
    then there these they this those to under up was we were what when where which while who whom
    why will with within would you your also all any each both other some only same very""".split()
)
_TOKEN_RE = re.compile(r"[a-z0-9]+")
# Bump when tokens change: BM25 indexes saved by another tokenizer are rebuilt on load.
TOKENIZER = "physics-10"

# One spelling for the notations physicists mix: Unicode Greek, LaTeX commands and
# plain names all become the name (μ, \mu, mu -> mu); decorations and scripts are
# unwrapped onto their symbol (t\bar{t}H, tt̄H, ttH -> tth; B^0_s, B⁰ₛ -> b0s); arrows
# vanish like the stopword "to"; particles written together are apart (mumu, μμ,
# \mu\mu -> mu mu; μν -> mu nu; ee -> e e);
# and a few symbols are their particle's name (mu/muon, H/Higgs, nu/neutrino; pT is the
# transverse momentum).
_GREEK = dict(zip(
    "αβγδεζηθικλμνξοπρστυφχψωϵϑϕς",
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau "
    "upsilon phi chi psi omega epsilon theta phi sigma".split(),
))
# with the asterisk operator PDFs set for a star ("D∗−") as the star
_GREEK_TABLE = str.maketrans({**_GREEK, "∗": "*"})  # a C loop: per character in Python this was a quarter of an index build
_DECORATION = re.compile(
    r"\\(?:bar|overline|tilde|widetilde|hat|widehat|vec|dot|mathrm|rm|text|textrm|mathit|mathbf|boldsymbol|mathcal|mathsf)"
    r"\s*\{([^{}]*)\}"
)
_STYLE_SWITCH = re.compile(r"\\(?:rm|it|bf|sf|tt|cal)\b\s*")
_ARROW_CMDS = re.compile(r"\\(?:long)?(?:right|left|leftright)arrow\b|\\to\b|\\mapsto\b")
_COMMAND = re.compile(r"\\([a-z]+)")
_PARTICLES = re.compile(r"mu|tau|nu|gamma|pi")
_RUN = re.compile(r"(?:mu|tau|nu|gamma|pi){2,}|([ebwzlq])\1")
_TRANSVERSE_MOMENTUM = re.compile(r"\btransverse[\s-]+moment(?:um|a)\b")
# Collision systems and χ² as LHCb writes them apart or as a macro ("$p$Pb", "Pb$p$", "\\chisq"): one word each
_SYSTEMS = re.compile(r"\b(p|pb)\s?-?\s?(p|pb)\b(?<!\bp p)|\bchisq\b")
_COMBINING = re.compile(r"[\u0300-\u036f]")


def physics_text(text: str) -> str:
    """``text`` lower-cased with its notation in one spelling (see above), for tokenizing."""
    text = spell_macro_decays(text)  # before lower-casing: a macro's capitals mark its symbols
    text = _TRANSVERSE_MOMENTUM.sub("pt", _COMBINING.sub("", unicodedata.normalize("NFKD", text)).lower())
    text = _SYSTEMS.sub(lambda m: m.group(1) + m.group(2) if m.group(1) else "chi2", text)
    for _ in range(2):
        text = _DECORATION.sub(r"\1", text)
    text = _COMMAND.sub(r"\1", _ARROW_CMDS.sub(" ", _STYLE_SWITCH.sub("", text)))
    return one_hadron_spelling(_glue_scripts(text.translate(_GREEK_TABLE)))


@lru_cache(maxsize=1)
def _stemmer():
    import Stemmer  # PyStemmer: Snowball English, C speed

    return Stemmer.Stemmer("english")


_NAMES = {"mu": "muon", "h": "higgs", "nu": "neutrino", "ttbar": "tt"}
_ARROWS = re.compile(r"→|⟶|->|-->|\\(?:long)?rightarrow\b|\\to\b")


@lru_cache(maxsize=1)
def _stemmed_names() -> dict[str, str]:
    return {k: _stemmer().stemWord(v) for k, v in _NAMES.items()}


# A neutral charge glued onto the particle after it ("ρ(1450)0π+", "K*(892)0K+"): the charge and the particle
_NEUTRAL_THEN = frozenset({"pi", "k", "rho", "eta", "phi", "omega", "gamma", "p", "mu", "e"})


def _split_particles(word: str) -> list[str]:
    if word[0] == "0" and word[1:] in _NEUTRAL_THEN:
        return ["0", word[1:]]
    run = _RUN.fullmatch(word)
    if not run:
        return [word]
    return [run.group(1)] * 2 if run.group(1) else _PARTICLES.findall(word)


def tokenize(text: str) -> list[str]:
    """Notation unified (``physics_text``), lower-cased alphanumeric runs, stopwords
    removed, Snowball-stemmed, particle symbols as their names."""
    words = [w for word in _TOKEN_RE.findall(physics_text(text)) for w in _split_particles(word) if w not in STOPWORDS]
    names = _stemmed_names()
    return [names.get(w, w) for w in _stemmer().stemWords(words)]


def spelled_out(text: str) -> str:
    """A question as the dense encoder reads it best: notation unified and symbols as
    words ("H → μμ" -> "higgs to muon muon"). MiniLM places "H->µµ" nearer a B-meson
    abstract than the H->mumu one; spelled out, every notation lands on the right one."""
    return _TOKEN_RE.sub(lambda m: " ".join(_NAMES.get(w, w) for w in _split_particles(m.group())),
                         " ".join(physics_text(_ARROWS.sub(" to ", text)).split()))


def tokenize_many(texts: list[str]) -> list[list[str]]:
    return [tokenize(t) for t in texts]


# A table cell that opens on a number ("125.0", "−0.42", "$0.022", "(3.4"): a row of values, not of names.
CELL_OPENS_ON_NUMBER = re.compile(r"\s*[$(]?\s*[-+−±~<>]?\s*\.?\d")


def escape_percent(text: str) -> str:
    """A bare % in Markdown or plain text is a percent sign, not a LaTeX comment."""
    return re.sub(r"(?<!\\)%", r"\\%", text)
