from ingest.chunk.from_blocks import paragraphs_from_blocks
from ingest.extract.layout import Block, BlockKind


def _heading(text: str, level: int) -> Block:
    return Block(page=1, bbox=(0, 0, 1, 1), text=text, kind=BlockKind.heading, level=level)


def _body(text: str) -> Block:
    return Block(page=1, bbox=(0, 0, 1, 1), text=text)


def test_sections_nest_by_level_even_when_the_first_heading_is_not_level_one():
    """A web page whose content opens at h2: its h2s are siblings, an h3 sits under the h2 before it."""
    parsed = paragraphs_from_blocks([
        _heading("Recipe", 2), _body("Set up the release."),
        _heading("Contacts", 2), _body("Write to the conveners."),
        _heading("Mailing lists", 3), _body("The analysis list."),
        _heading("Datacards", 2), _body("They live in the group area."),
    ])
    assert [p.section for p in parsed.paragraphs] == [
        ("Recipe",), ("Contacts",), ("Contacts", "Mailing lists"), ("Datacards",)]
