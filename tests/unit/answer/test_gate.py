"""``gated``: streamed as a model streams (1–3 characters a piece), no sentence shows its
figure before ``check`` has read the whole sentence; prose is not delayed."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from mitra.answer.gate import gated

WRONG = "The vector mediator is excluded for masses below 2.05 TeV [1]."
RIGHT = "The axial-vector mediator is excluded below 2.05 TeV [1]."
FIGURE_REF = "The monojet search sees no excess (see Fig. 3, e.g. the pTmiss tail)."  # "3" is a digit too
ANSWER = f"The dominant background is Z → νν [2]. {RIGHT} {WRONG} {FIGURE_REF}\nThe fit uses a Crystal Ball [1-3]."


def tokens(text: str, seed: int = 0) -> Iterator[str]:
    """``text`` in pieces of 1–3 characters."""
    rng = random.Random(seed)
    i = 0
    while i < len(text):
        n = rng.randint(1, 3)
        yield text[i: i + n]
        i += n


def stream(text: str, check=lambda s: True, seed: int = 0) -> tuple[list[str], list[tuple[str, bool]]]:
    held: list[tuple[str, bool]] = []
    return list(gated(tokens(text, seed), check, lambda s, ok: held.append((s, ok)))), held


def not_vector(sentence: str) -> bool:
    return "vector mediator" not in sentence or "axial-vector" in sentence


@pytest.mark.parametrize("seed", range(20))
def test_a_wrong_figure_never_shows_and_a_right_one_shows_whole(seed):
    shown, held = stream(ANSWER, not_vector, seed)
    text = "".join(shown)
    assert RIGHT in text
    assert "The vector mediator is excluded for masses below " in text  # up to its first digit
    assert text.count("2.05") == 1  # the right sentence's only
    assert held == [(RIGHT, True), (WRONG, False), (FIGURE_REF, True)]
    assert text == ANSWER.replace(WRONG, WRONG[: WRONG.index("2.05")])


@pytest.mark.parametrize("seed", range(20))
def test_when_every_check_passes_the_text_comes_out_whole(seed):
    shown, held = stream(ANSWER, seed=seed)
    assert "".join(shown) == ANSWER
    assert [s for s, _ in held] == [RIGHT, WRONG, FIGURE_REF]  # no other sentence has a digit


def test_a_held_figure_waits_for_the_end_of_its_sentence():
    pieces = ["The limit is ", "2", ".", "05 TeV", " [1]", ".", " Next"]
    seen = []
    for piece in gated(iter(pieces), lambda s: True):
        seen.append(piece)
    assert seen == ["The limit is ", "2.05 TeV [1].", " Next"]


def test_prose_passes_at_once_without_waiting_for_the_stream():
    consumed: list[str] = []

    def model() -> Iterator[str]:
        for piece in ["The dominant ", "background is ", "Z [2]", " plus jets"]:
            consumed.append(piece)
            yield piece
        raise AssertionError("read past the pieces the test needs")

    out = gated(model(), lambda s: pytest.fail("no figure to check"))
    assert next(out) == "The dominant "
    assert consumed == ["The dominant "]
    assert next(out) == "background is "
    assert next(out) == "Z [2]"  # the marker shows once it closes as a citation
    assert next(out) == " plus jets"
    assert consumed == ["The dominant ", "background is ", "Z [2]", " plus jets"]


@pytest.mark.parametrize("marker", ["[3]", "[1, 2]", "[1-3]", "[1–3]", "[2][4]"])
def test_a_sentence_whose_only_digits_are_citation_markers_is_not_held(marker):
    text = f"The background is estimated from control regions {marker}. It is small."
    shown, held = stream(text, lambda s: False)
    assert "".join(shown) == text and held == []


def test_an_unclosed_bracket_with_digits_is_a_figure():
    shown, held = stream("The window is [5.0, 6.0 GeV.", lambda s: False)
    assert "".join(shown) == "The window is [" and held == [("The window is [5.0, 6.0 GeV.", False)]


@pytest.mark.parametrize("text", [
    "The mass is 125.09 ± 0.24 GeV, e.g. in Fig. 3 of the note, with 0.21 (stat.) and 0.11 (syst.) GeV [1].",
    "The uncertainty, i.e. 0.3 %, comes from Ref. [2] and Eq. 4 [2].",
])
def test_decimals_and_abbreviations_do_not_split_a_sentence(text):
    shown, held = stream(text)
    assert "".join(shown) == text and held == [(text, True)]


def test_each_sentence_and_line_is_checked_on_its_own():
    text = "Signal yield: 37.6 events [1]!\nBackground: 12 events? The ratio is 3.1. Nothing else."
    checked = []
    shown = list(gated(tokens(text), lambda s: checked.append(s) or True))
    assert "".join(shown) == text
    assert checked == ["Signal yield: 37.6 events [1]!", "Background: 12 events?", "The ratio is 3.1."]


def test_a_list_number_is_not_a_figure():
    text = "The backgrounds:\n1. Z to neutrinos [1].\n2. W plus jets [2]."
    shown, held = stream(text, lambda s: False)
    assert "".join(shown) == text and held == []


def test_an_unfinished_sentence_at_the_end_is_checked_too():
    shown, held = stream("No excess is seen. The limit is 2.1 TeV", lambda s: False)
    assert "".join(shown) == "No excess is seen. The limit is " and held == [("The limit is 2.1 TeV", False)]
    shown, held = stream("The limit is 2.1 TeV", lambda s: True)
    assert "".join(shown) == "The limit is 2.1 TeV" and held == [("The limit is 2.1 TeV", True)]


def test_an_empty_stream_yields_nothing():
    assert list(gated(iter([]), lambda s: True)) == []
    assert list(gated(iter(["", ""]), lambda s: True)) == []
