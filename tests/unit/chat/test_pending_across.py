"""The app's answerer loads in the background (``PendingAnswerer``): an across question's
answerer must still be the across one once loaded, not the locked one."""

from __future__ import annotations

from concurrent.futures import Future

from mitra.chat.pending import PendingAnswerer


class Loaded:
    def __init__(self) -> None:
        self.asked: list[tuple[object, bool]] = []

    def for_pipeline(self, pipeline, across: bool = False):
        self.asked.append((pipeline, across))
        return self


def test_an_across_answerer_loaded_later_is_the_across_one():
    loaded, done = Loaded(), Future()
    done.set_result(loaded)
    pending = PendingAnswerer(lambda: done)
    pending.for_pipeline("member's view", across=True).loaded()
    pending.for_pipeline("member's view").loaded()
    assert loaded.asked == [("member's view", True), ("member's view", False)]
