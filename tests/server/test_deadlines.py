"""Statement timeouts: deadlines run once due, canceled ones never, and canceled ones leave."""

from __future__ import annotations

import threading

from embucket_py.server.deadlines import Deadlines


def test_due_deadlines_run_in_time_order_and_canceled_ones_never() -> None:
    deadlines = Deadlines()
    ran: list[str] = []
    done = threading.Event()
    deadlines.after(0.15, lambda: (ran.append("late"), done.set()))
    deadlines.after(0.05, lambda: ran.append("early"))
    deadlines.after(0.1, lambda: ran.append("canceled")).cancel()
    assert done.wait(5)
    assert ran == ["early", "late"]


def test_canceled_deadlines_do_not_pile_up() -> None:
    deadlines = Deadlines()
    for _ in range(5000):
        deadlines.after(172800, lambda: None).cancel()
    assert len(deadlines._heap) <= 1001
