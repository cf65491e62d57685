"""Maths in answers and passages reads as physics writes it (issue 47): words upright, not
italic letters ("miss", "CL", "fb"), and subscripts kept where a portal wrote them as HTML."""

import pytest

from mitra.ui.render import inert_markdown


@pytest.mark.parametrize("text, shown", [
    ("the $p_{T}^{miss}$ spectrum", r"the $p_{T}^{\mathrm{miss}}$ spectrum"),
    ("the $CL_{s}$ method with 61.9 $fb^{-1}$", r"the $\mathrm{CL}_{s}$ method with 61.9 $\mathrm{fb}^{-1}$"),
    ("$m_{H}$ = 125 GeV and $H \\to \\mu\\mu$", "$m_{H}$ = 125 GeV and $H \\to \\mu\\mu$"),
    ("with m<sub>H</sub> = 125.38 GeV", "with $m_{H}$ = 125.38 GeV"),
    ("m<sub>χ</sub> = 1 GeV", "$m_{χ}$ = 1 GeV"),
    ("p<sub>T</sub><super>miss</super> > 250", r"$p_{T}^{\mathrm{miss}}$ > 250"),
    ("costs $5 and $10", "costs $5 and $10"),  # not maths: left alone
    (r"$\mathrm{GeV}$", r"$\mathrm{GeV}$"),
])
def test_maths_words_are_upright_and_html_scripts_kept(text, shown):
    assert inert_markdown(text) == shown
    assert inert_markdown(shown) == shown  # idempotent: a stream is sanitised whole at every token


def test_an_image_inside_maths_is_made_inert_once_and_for_all():
    """Found by the property test: "$\\ ![a](https://evil.example/x.png) $" became
    "$\\ [image: a] $" and, sanitised again, "$\\ [\\mathrm{image}: a] $"; a stream is re-sanitised
    at every token, so the text must not change a second time."""
    shown = inert_markdown("$\\ ![a](https://evil.example/x.png) $")
    assert "evil" not in shown and inert_markdown(shown) == shown
