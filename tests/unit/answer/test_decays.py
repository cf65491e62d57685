"""A value stated for another decay of the b hadron asked is never shown first or stated as
sure (LHCb 2103.06810's table of updated branching fractions: "Bs → KS K± π∓ | 4.64 …" was shown
first, bold, and stated for "the branching fraction for Bs → K+K−")."""

from __future__ import annotations

from mitra.answer.asked import Asked
from mitra.answer.candidates import candidates, confident
from mitra.answer.claims import PassageText
from mitra.answer.decays import Decay, another_decay, decays
from mitra.answer.values import about_it
from tests.unit.answer.test_values import hits

ASKED = "What updated branching fraction for Bs → K+K− does LHCb obtain with the new fs/fd values?"


def test_a_decay_is_its_parent_and_products_in_any_spelling():
    assert decays(ASKED) == {Decay("bs", ("k", "k"))}
    assert decays("Bs0 -> Kp Km") == decays("$B^0_s \\to K^+K^-$") == {Decay("bs", ("k", "k"))}
    assert decays("Bs -> KS Kpm pimp") == {Decay("bs", ("k", "ks"))}
    assert decays("B0 -> K*0 mu+ mu- decays with 3 fb-1") == {Decay("b0", ("kstar", "muon", "muon"))}
    assert decays("the ratio of 4.6 to 2.3") == frozenset()


def test_another_decay_of_the_b_hadron_asked_rivals_it_and_an_intermediate_one_does_not():
    asked = decays(ASKED)
    assert another_decay(asked, "Bs -> KS Kpm pimp")
    assert another_decay(asked, "B0 -> K+ K-")  # the same products of another b hadron
    assert not another_decay(asked, "Bs -> K+ K-")
    assert not another_decay(asked, "Bs -> K+ K- and Bs -> KS K pi")  # it names the one asked too
    assert not another_decay(decays("the efficiency for D* -> D pi0/gamma"), "Dstar -> D gamma")


def test_a_row_of_another_decay_is_neither_shown_first_nor_sure():
    table = ("Updated branching fractions.\nDecay mode | Updated branching fraction | Previous result\n"
             "Bs -> KS K+- pi-+ | (4.64 +- 0.19 +- 0.30) x 10-5 | (4.22 +- 0.18 +- 0.28) x 10-5")
    asked = Asked.read(ASKED)
    ranked = candidates(asked, hits([PassageText(1, table)]))
    assert ranked[0].mention.written.startswith("4.64") and ranked[0].signals["another decay"] == 1.0
    assert not confident(ranked[:1], 0.0) and not about_it(asked, ranked[0])
    same = candidates(asked, hits([PassageText(1, table.replace("KS K+- pi-+", "K+ K-"))]))
    assert same[0].signals["another decay"] == 0.0 and confident(same[:1], 0.0)
