"""Worker-process jobs: pause / step / resume / stop, errors as messages, a bounded queue."""

from __future__ import annotations

import time

import pytest

from attnviz.training.jobs import JobPool
from attnviz.training.trainer import TrainConfig

SLOW = "attnviz.training.testing_tasks:slow"


def wait_for(job, predicate, timeout=60.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        state = job.poll()
        if predicate(state):
            return state
        time.sleep(0.05)
    raise AssertionError(f"timed out; last state {job.poll()}")


@pytest.fixture(scope="module")
def pool():
    p = JobPool(max_workers=1, time_cap=120)
    yield p
    p.shutdown()


def test_pause_step_resume_stop(pool):
    job = pool.submit(SLOW, 0.01, TrainConfig(steps=100_000, eval_every=50))
    wait_for(job, lambda s: s.status == "running" and s.step > 3)
    job.pause()
    paused = wait_for(job, lambda s: s.status == "paused")
    time.sleep(0.3)
    before = job.poll().step
    assert before == paused.step or before == job.poll().step  # nothing moves while paused
    after = job.step()
    assert after.step == before + 1, "a step advances exactly one"
    assert job.step().step == before + 2
    job.resume()
    wait_for(job, lambda s: s.status == "running" and s.step > before + 5)
    job.stop()
    assert job.poll().status == "stopped"
    assert not job.process.is_alive()


def test_worker_exception_comes_back_as_a_message(pool):
    job = pool.submit("attnviz.training.testing_tasks:explode", None, TrainConfig())
    state = wait_for(job, lambda s: s.finished)
    assert state.status == "error"
    assert "failed on purpose" in state.reason


def test_second_job_waits_for_a_free_worker_then_runs(pool):
    first = pool.submit(SLOW, 0.005, TrainConfig(steps=100_000))
    second = pool.submit(SLOW, 0.0, TrainConfig(steps=20))
    assert second.poll().status == "queued"
    assert second.state.queue_position == 1
    wait_for(first, lambda s: s.status == "running")
    assert second.poll().status == "queued"
    second.step()  # a queued job cannot step: it returns at once, and will start paused
    assert second.poll().status == "queued"
    second.resume()  # ... unless resumed before it starts
    first.stop()
    done = wait_for(second, lambda s: s.finished)
    assert done.status == "done" and done.step == 20
    assert done.history.step[-1] == 20 and len(done.snapshots) >= 1


def test_time_cap_stops_a_job():
    capped = JobPool(max_workers=1, time_cap=1.0)
    job = capped.submit(SLOW, 0.01, TrainConfig(steps=100_000))
    state = wait_for(job, lambda s: s.finished)
    assert state.status == "stopped" and "time cap" in state.reason


def test_a_job_queued_while_paused_starts_paused_and_steps(pool):
    first = pool.submit(SLOW, 0.005, TrainConfig(steps=100_000))
    second = pool.submit(SLOW, 0.0, TrainConfig(steps=50))
    second.pause()
    first.stop()
    state = wait_for(second, lambda s: s.status == "paused")
    assert state.step == 0
    assert second.step().step == 1
    second.stop()
    assert second.poll().status == "stopped"
