"""The debouncer with a hand-driven clock and a fake stat: no threads, no sleeps."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from desktop_app.core.watch.debounce import Change, Debouncer, Move


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


class Disk:
    """Fake stat results by path; a missing path stats as None."""

    def __init__(self):
        self.sig = {}

    def __call__(self, path):
        return self.sig.get(path)


def make(quiet=1.0, **kw):
    clock, disk = Clock(), Disk()
    return Debouncer(quiet, clock=clock, stat=disk, **kw), clock, disk


def test_a_save_storm_is_one_change_after_the_quiet_period():
    d, clock, disk = make()
    for i in range(20):
        disk.sig["/r/a.txt"] = (i, i)
        d.changed("/r/a.txt")
        clock.now += 0.1
    assert d.pop_ready() == []
    clock.now += 1.0
    assert d.pop_ready() == [Change("/r/a.txt")]
    assert d.pop_ready() == [] and len(d) == 0


def test_a_file_growing_without_events_waits_until_size_and_mtime_settle():
    d, clock, disk = make()
    disk.sig["/r/big.bin"] = (10, 1)
    d.changed("/r/big.bin")
    for size in (20, 30, 40):  # a copy on a polled drive: no events, the size still moves
        clock.now += 1.5
        disk.sig["/r/big.bin"] = (size, size)
        assert d.pop_ready() == []
    clock.now += 0.5
    assert d.pop_ready() == []  # stable for only 0.5 s
    clock.now += 0.6
    assert d.pop_ready() == [Change("/r/big.bin")]


def test_a_deleted_file_is_ready_after_the_quiet_period():
    d, clock, _ = make()
    d.changed("/r/gone.txt")
    clock.now += 1.0
    assert d.pop_ready() == [Change("/r/gone.txt")]


def test_changes_under_a_pending_folder_fold_into_it():
    d, clock, disk = make()
    d.changed("/r/sub/early.txt")  # an event seen before the folder's own (folded when the folder arrives)
    d.changed("/r/sub", is_dir=True)
    for i in range(50):
        disk.sig[f"/r/sub/f{i}.txt"] = (i, i)
        d.changed(f"/r/sub/f{i}.txt")
        clock.now += 0.05
    assert len(d) == 1
    clock.now += 0.9
    assert d.pop_ready() == []  # the last child event was 0.9 s ago
    clock.now += 0.2
    assert d.pop_ready() == [Change("/r/sub", is_dir=True)]


def test_a_move_is_ready_at_once_and_both_ends_are_checked_later():
    d, clock, disk = make()
    disk.sig["/r/new.txt"] = (5, 5)
    d.moved("/r/old.txt", "/r/new.txt")
    assert d.pop_ready() == [Move("/r/old.txt", "/r/new.txt")]
    clock.now += 1.0
    assert sorted(d.pop_ready(), key=str) == [Change("/r/new.txt"), Change("/r/old.txt")]


def test_a_path_that_never_settles_is_still_synced_after_max_delay():
    d, clock, disk = make(max_delay=5.0)
    for i in range(60):
        disk.sig["/r/log.txt"] = (i, i)
        d.changed("/r/log.txt")
        clock.now += 0.1
        if i < 49:
            assert d.pop_ready() == []
    assert Change("/r/log.txt") in d.pop_ready()


def test_discard_under_forgets_a_folder():
    d, clock, _ = make()
    d.changed("/r/a.txt")
    d.changed("/other/b.txt")
    d.moved("/r/x.txt", "/r/y.txt")
    d.discard_under("/r")
    clock.now += 2
    assert d.pop_ready() == [Change("/other/b.txt")]


def test_on_event_is_called_for_every_event():
    calls = []
    d = Debouncer(1.0, clock=Clock(), stat=Disk(), on_event=lambda: calls.append(1))
    d.changed("/r/a")
    d.moved("/r/a", "/r/b")
    assert len(calls) == 2


paths = st.sampled_from(["/r/a.txt", "/r/b.txt", "/r/sub", "/r/sub/c.txt", "/r/sub/deep/d.txt", "/r/e.md"])
events = st.lists(st.tuples(st.sampled_from(["change", "move"]), paths, paths,
                            st.floats(min_value=0, max_value=0.5)), max_size=40)


@given(events)
def test_every_touched_path_is_covered_exactly_once_once_things_settle(evs):
    d, clock, _ = make()
    touched = set()
    for kind, a, b, dt in evs:
        if kind == "move" and a != b:
            d.moved(a, b, is_dir=a == "/r/sub")
            touched |= {a, b}
        else:
            d.changed(a, is_dir=a == "/r/sub")
            touched.add(a)
        clock.now += dt
    clock.now += 1.0
    ready = d.pop_ready()
    changes = [op.path for op in ready if isinstance(op, Change)]
    assert len(changes) == len(set(changes))  # never the same path twice
    for path in touched:  # each path is synced itself or through a pending folder above it
        assert path in changes or any(path.startswith(c + "/") for c in changes)
    assert len(d) == 0
