"""``pingvinas.cluster._stream`` with a stand-in for Ray (no Ray needed): what a run does
with its other tasks when one fails, or on Ctrl-C. A finished task is never cancelled (a cancel
that meets a task's reply can abort Ray's driver), and tasks under way are given time to
finish after an error, not after Ctrl-C."""

import pytest

from pingvinas import cluster as distributed


class Failed(Exception):
    pass


class StandIn:
    """Ray's `wait`, `get` and `cancel` over tasks numbered from 0: `now[i]` is task i's
    outcome once it has finished (a value, or an exception it raises), `later[i]` its outcome
    once a wait with a timeout has let it finish; tasks in neither never finish."""

    def __init__(self, now, later):
        self.now, self.later = dict(now), dict(later)
        self.cancelled = []
        self.timeouts = []

    def wait(self, refs, num_returns=1, timeout=None):
        if timeout is not None:
            self.timeouts.append(timeout)
            if timeout > 0:
                self.now.update(self.later)
        ready = [r for r in refs if r in self.now][:num_returns]
        return ready, [r for r in refs if r not in ready]

    def get(self, ref, timeout=None):
        outcome = self.now[ref]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def cancel(self, ref, force=False):
        assert ref not in self.now, f"task {ref} had finished"
        self.cancelled.append(ref)


def run(ray, done, reported):
    """Six tasks, four at a time; `done(i)` is called before task i's value is kept."""

    def report(i, value):
        done(i)
        reported[i] = value

    distributed._stream(ray, lambda i: i, count=6, window=4, done=report)


def test_an_error_lets_the_tasks_under_way_finish_and_cancels_only_the_rest():
    # Task 0 fails; of the others under way, 1 finishes later, 2 fails later, 3 never ends.
    ray = StandIn(now={0: Failed("task 0")}, later={1: "one", 2: Failed("task 2")})
    reported = {}
    with pytest.raises(Failed, match="task 0"):
        run(ray, lambda i: None, reported)
    assert reported == {1: "one"}
    assert ray.timeouts == [distributed.SETTLE_SECONDS]
    assert ray.cancelled == [3]  # never 2, which had failed, nor 4 and 5, never submitted


def test_ctrl_c_cancels_the_tasks_under_way_at_once():
    ray = StandIn(now={0: "zero"}, later={1: "one"})

    def interrupted(i):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(ray, interrupted, {})
    assert ray.timeouts == [0.0]
    assert ray.cancelled == [1, 2, 3]
