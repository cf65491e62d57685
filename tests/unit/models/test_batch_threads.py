"""The thread count of each embedding batch: every count tried, the fastest per character
kept, the others tried again every round, a fixed count when the setting gives one."""

from __future__ import annotations

from mitra.models.threads import _PROBE_EVERY, BatchThreads


def run(threads: BatchThreads, seconds_per_char: dict[int, float], batches: int) -> list[int]:
    chosen = []
    for _ in range(batches):
        count = threads.choose()
        threads.record(count, seconds_per_char[count] * 1000, 1000)
        chosen.append(count)
    return chosen


def test_the_fastest_count_is_kept_and_the_others_tried_again_each_round():
    threads = BatchThreads(cores=4)
    assert threads.counts == [1, 2, 4]
    busy = {1: 1.0, 2: 1.6, 4: 3.0}  # shared cores: one thread is fastest
    chosen = run(threads, busy, _PROBE_EVERY * 2)
    assert chosen[:3] == [1, 2, 4] and set(chosen[3:_PROBE_EVERY]) == {1}
    assert chosen[_PROBE_EVERY:_PROBE_EVERY + 3] == [1, 2, 4]  # a new round of trying
    idle = {1: 1.0, 2: 0.6, 4: 0.4}  # the other work is gone: all cores win from the next round on
    later = run(threads, idle, _PROBE_EVERY * 2)
    assert later[-1] == 4


def test_a_fixed_count_is_always_used():
    threads = BatchThreads(fixed=2, cores=4)
    assert run(threads, {2: 1.0}, 10) == [2] * 10
    assert BatchThreads(cores=1).counts == [1]
