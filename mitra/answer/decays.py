"""The decays a question and a value's row or sentence name: is the value stated for another
decay than the one asked?

A table of branching fractions or yields states one value a decay, and its rows share most
words: "Bs → KS K± π∓ | (4.64 ± 0.19 …) × 10−5" holds every word of "the branching fraction
for Bs → K+K−" but the products. A decay is read as its parent and its products, spelled as
``tokenize`` spells particles (no charges; "K0", "π0" as "K", "π"), from an arrow. As a ranking
signal the agreement did not pay (docs/benchmarks.md: the value's own row or sentence names the
asked decay for 12 of 217 development questions); it only keeps a value stated for another decay
of the same parent, or the same products of another parent, from being shown or stated as sure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from mitra.core.hadrons import particle_words
from mitra.core.text import tokenize

_ARROW = re.compile(r"→|⟶|-->|->|\\(?:long)?rightarrow\b|\\to\b")
# Where a side of a decay ends: punctuation, or a word that is no particle's
_END = re.compile(r"[,;:()\[\]{}|=]|\b(?:and|or|with|in|for|of|at|is|are|was|were|to|from|via|using|where|which|does|do"
                  r"|decays?|modes?|channels?|candidates?|events?|signal|yields?|the|a|an)\b", re.I)
_B_HADRONS = frozenset({"b", "b0", "bs", "bc", "lambdab", "xib", "omegab"})
# the words a question may use for what the macros spell otherwise ("mu" is already "muon")
_EXTRA = {"k0": "k", "pi0": "pi", "rho0": "rho", "electron": "e", "photon": "gamma"}


@dataclass(frozen=True)
class Decay:
    parent: str
    products: tuple[str, ...]  # sorted

    def rivals(self, other: "Decay") -> bool:
        """Another decay of the same b hadron, or the same products of another: an analysis's own
        decay. A charm meson's ("D* → D π0/γ" beside "D* → D γ") is an intermediate one, often
        several of them asked together."""
        return self != other and self.parent in _B_HADRONS and (
            self.parent == other.parent or self.products == other.products)


@lru_cache(maxsize=1)
def _particles() -> dict[str, str]:
    names = {t: t for w in particle_words() - {"long", "downstream", "x", "l", "h"} for t in tokenize(w)}
    return names | _EXTRA


def _side(text: str) -> list[str] | None:
    """The particles a side of a decay holds, up to the first word that is none (None: it opens on one)."""
    out = []
    for token in tokenize(text):
        particle = _particles().get(token)
        if particle is None:
            break
        out.append(particle)
    return out or None


@lru_cache(maxsize=4096)
def decays(text: str) -> frozenset[Decay]:
    """Every decay ``text`` names."""
    pieces = _ARROW.split(text)
    found = set()
    for left, right in zip(pieces, pieces[1:]):
        before = _END.split(left)[-1].split()
        parent = _side(before[-1]) if before else None
        products = _side(_END.split(right)[0])
        if parent and products:
            found.add(Decay(parent[0], tuple(sorted(products))))
    return frozenset(found)


def another_decay(asked: frozenset[Decay], text: str) -> bool:
    """Does ``text`` (a value's table row label or sentence) name only decays that rival one the
    question names, none it names?"""
    if not asked:  # most questions name no decay: no row is read
        return False
    stated = decays(text)
    return bool(stated) and not stated & asked and any(a.rivals(s) for a in asked for s in stated)
