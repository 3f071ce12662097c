"""run_both: the two sides of a hybrid search at once on a small persistent pool, with results and errors as if
they had run one after the other."""

from __future__ import annotations

import threading

import pytest

from desktop_app.core.search import side_pool
from desktop_app.core.search.side_pool import THREAD_PREFIX, WORKERS, run_both


def test_first_runs_on_the_pool_and_second_here_and_both_come_back_in_order():
    seen: dict[str, str] = {}

    def first() -> list[int]:
        seen["first"] = threading.current_thread().name
        return [1, 2]

    def second() -> list[int]:
        seen["second"] = threading.current_thread().name
        return [3]

    assert run_both(first, second) == ([1, 2], [3])
    assert seen["first"].startswith(THREAD_PREFIX)
    assert seen["second"] == threading.current_thread().name


def test_the_sides_overlap():
    """second() waits for first() to have started: it returns only if both run at the same time."""
    started = threading.Event()

    def first() -> str:
        started.set()
        return "keyword"

    def second() -> str:
        assert started.wait(timeout=30), "first never ran while second was running"
        return "dense"

    assert run_both(first, second) == ("keyword", "dense")


def test_the_pool_is_made_once_and_stays_small():
    names = {run_both(lambda: threading.current_thread().name, lambda: None)[0] for _ in range(200)}
    assert side_pool.side_pool() is side_pool.side_pool()
    assert 1 <= len(names) <= WORKERS


def test_first_error_wins_as_in_sequence_and_second_waits_for_first():
    finished = []

    def failing_first() -> None:
        finished.append("first")
        raise KeyError("keyword side")

    def failing_second() -> None:
        raise ValueError("dense side")

    with pytest.raises(KeyError):
        run_both(failing_first, failing_second)
    with pytest.raises(KeyError):
        run_both(failing_first, lambda: "dense")
    with pytest.raises(ValueError):
        run_both(lambda: finished.append("ok"), failing_second)
    assert finished == ["first", "first", "ok"]  # each first() had finished when run_both returned


def test_on_a_pool_thread_it_runs_in_sequence_rather_than_wait_on_the_pool():
    inner = run_both(lambda: run_both(lambda: threading.current_thread().name, lambda: "here"), lambda: None)[0]
    assert inner[0].startswith(THREAD_PREFIX) and inner[1] == "here"
