"""Worker-process jobs: pause / step / resume / stop, errors as messages, a bounded queue, and the
typed boundary (specs that build their own Trainable, statuses as RunStatus)."""

from __future__ import annotations

import pickle
import time
from collections.abc import Callable, Iterator

import pytest

from attnviz.training.jobs import Job, JobPool, JobState
from attnviz.training.messages import RunStatus, WorkerError
from attnviz.training.pace import pace_delay, pace_mark, speed_text
from attnviz.training.specs import spec_changes
from attnviz.training.testing_tasks import ExplodingSpec, SlowSpec
from attnviz.training.trainer import TrainConfig


def wait_for(job: Job, predicate: Callable[[JobState], bool], timeout: float = 60.0) -> JobState:
    deadline = time.time() + timeout
    while time.time() < deadline:
        state = job.poll()
        if predicate(state):
            return state
        time.sleep(0.05)
    raise AssertionError(f"timed out; last state {job.poll()}")


def fresh_step(job: Job) -> tuple[int, float]:
    """The step of the next report that moves it, and when it arrived: a report polled just
    after it came, not one that waited in the queue (Ray's transport can hold a few back)."""
    before = job.poll().step
    state = wait_for(job, lambda s: s.step != before, timeout=10.0)
    return state.step, time.perf_counter()


@pytest.fixture
def make_pool() -> Iterator[Callable[..., JobPool]]:
    """Pools made through this are shut down after the test (their workers stopped)."""
    pools: list[JobPool] = []

    def make(**kwargs) -> JobPool:
        pools.append(JobPool(**kwargs))
        return pools[-1]

    yield make
    for p in pools:
        p.shutdown()
        assert not any(j.process is not None and j.process.is_alive() for j in p.running)


@pytest.fixture
def pool(make_pool) -> JobPool:
    return make_pool(max_workers=1, time_cap=120)


def test_pause_holds_the_step_count_then_step_resume_stop(pool):
    job = pool.submit(SlowSpec(0.01), TrainConfig(steps=100_000, eval_every=50))
    wait_for(job, lambda s: s.status == RunStatus.RUNNING and s.step > 3)
    job.pause()
    # poll() returns one live JobState, so keep numbers, not states, to compare later
    paused_at = wait_for(job, lambda s: s.status == RunStatus.PAUSED).step
    time.sleep(0.6)  # ~60 steps' time at 0.01 s a step, were it still running
    state = job.poll()
    assert state.status == RunStatus.PAUSED
    assert state.step == paused_at, "no step is taken while paused"
    assert state.history.step[-1] == paused_at
    assert job.step().step == paused_at + 1, "a step advances exactly one"
    assert job.step().step == paused_at + 2
    assert job.poll().history.step[-3:] == [paused_at, paused_at + 1, paused_at + 2]
    job.resume()
    wait_for(job, lambda s: s.status == RunStatus.RUNNING and s.step > paused_at + 5)
    job.stop()
    assert job.poll().status == RunStatus.STOPPED
    assert not job.process.is_alive()


def test_pause_and_resume_are_intents_that_wait_for_the_answer(pool):
    """Pause and Resume are intents, not a toggle: a repeated one changes nothing."""
    job = pool.submit(SlowSpec(0.01), TrainConfig(steps=100_000))
    wait_for(job, lambda s: s.status == RunStatus.RUNNING)
    assert job.pause(wait=5).status == RunStatus.PAUSED, "pause(wait) returns once paused"
    paused_at = job.pause(wait=5).step
    time.sleep(0.5)
    assert job.poll().status == RunStatus.PAUSED and job.poll().step == paused_at
    assert job.resume(wait=5).status == RunStatus.RUNNING, "resume(wait) returns once running"
    assert job.resume(wait=5).status == RunStatus.RUNNING
    job.stop()


def test_worker_exception_comes_back_as_a_message(pool):
    job = pool.submit(ExplodingSpec(), TrainConfig())
    state = wait_for(job, lambda s: s.finished)
    assert state.status == RunStatus.ERROR and state.status.terminal
    assert "failed on purpose" in state.reason


def test_a_stopped_job_stays_stopped_when_its_workers_end_is_read_late(pool):
    """A Ray task's end can arrive after stop() returned (CI saw 'error' once): it must not
    turn a run the user stopped into an error; the queued job's verdict holds the same way."""
    running = pool.submit(SlowSpec(0.005), TrainConfig(steps=100_000))
    queued = pool.submit(SlowSpec(0.005), TrainConfig(steps=100_000))
    wait_for(running, lambda s: s.status == RunStatus.RUNNING)
    for job, reason in ((queued, "stopped before it started"), (running, "stopped by the user")):
        job.stop()
        job.events.put(WorkerError("RayTaskError: the task's worker ended"))
        job.read(timeout=5)  # the late message, applied
        assert (job.poll().status, job.state.reason) == (RunStatus.STOPPED, reason)


def test_second_job_waits_for_a_free_worker_then_runs(pool):
    first = pool.submit(SlowSpec(0.005), TrainConfig(steps=100_000))
    second = pool.submit(SlowSpec(0.0), TrainConfig(steps=20))
    assert second.poll().status == RunStatus.QUEUED
    assert second.state.queue_position == 1
    wait_for(first, lambda s: s.status == RunStatus.RUNNING)
    assert second.poll().status == RunStatus.QUEUED
    second.step()  # a queued job cannot step: it returns at once, and will start paused
    assert second.poll().status == RunStatus.QUEUED
    second.resume()  # ... unless resumed before it starts
    first.stop()
    done = wait_for(second, lambda s: s.finished)
    assert done.status == RunStatus.DONE and done.step == 20
    assert done.history.step == list(range(1, 21)), "every step arrives once, in order"
    assert done.history.eval_step[0] == 0 and done.history.eval_step[-1] == 20
    assert [s for s, _ in done.snapshots] == [0, 20]
    assert second.spec == SlowSpec(0.0), "the job keeps the spec it was started with"


def test_time_cap_stops_a_job(make_pool):
    capped = make_pool(max_workers=1, time_cap=1.0)
    job = capped.submit(SlowSpec(0.01), TrainConfig(steps=100_000))
    state = wait_for(job, lambda s: s.finished)
    assert state.status == RunStatus.STOPPED and "time cap" in state.reason


def test_a_job_queued_while_paused_starts_paused_and_steps(pool):
    first = pool.submit(SlowSpec(0.005), TrainConfig(steps=100_000))
    second = pool.submit(SlowSpec(0.0), TrainConfig(steps=50))
    second.pause()
    first.stop()
    state = wait_for(second, lambda s: s.status == RunStatus.PAUSED)
    assert state.step == 0
    assert second.step().step == 1
    second.stop()
    assert second.poll().status == RunStatus.STOPPED


def test_a_spec_without_build_is_refused(pool):
    with pytest.raises(TypeError, match="build"):
        pool.submit("attnviz.training.testing_tasks:slow", TrainConfig())


def test_specs_pickle_by_reference_and_name_their_changes():
    from attnviz.data.toy import DatasetSpec
    from attnviz.topics.kernel_smoother.task import KernelJobSpec

    spec = KernelJobSpec(DatasetSpec("rings_2d"))
    assert pickle.loads(pickle.dumps(spec)) == spec
    assert b"KernelJobSpec" in pickle.dumps(spec) and b"build" not in pickle.dumps(spec)
    other = KernelJobSpec(DatasetSpec("sine_1d"), leave_one_out=False)
    assert spec_changes(spec, other) == ["data.name", "leave_one_out"]
    assert spec_changes(spec, spec) == []
    assert spec_changes(spec, SlowSpec()) == ["the kind of run"]


def test_run_status_values():
    assert RunStatus("stopped early") is RunStatus.STOPPED_EARLY
    assert {s for s in RunStatus if s.terminal} == {
        RunStatus.DONE,
        RunStatus.STOPPED_EARLY,
        RunStatus.DIVERGED,
        RunStatus.STOPPED,
        RunStatus.ERROR,
    }
    assert [s for s in RunStatus if s.active] == [
        RunStatus.QUEUED,
        RunStatus.STARTING,
        RunStatus.RUNNING,
    ]
    assert f"{RunStatus.PAUSED}" == "paused"


def test_pace_delay_caps_the_rate():
    assert pace_delay(0, 0.0, 5) == 0.0, "the first step goes at once"
    assert pace_delay(1, 0.0, 5) == pytest.approx(0.2), "at 5 steps/s the next waits 0.2 s"
    assert pace_delay(10, 1.5, 5) == pytest.approx(0.5)
    assert pace_delay(10, 3.0, 5) == 0.0, "the wait is never negative"
    assert pace_delay(1000, 0.0, 0) == 0.0, "0 = no cap"
    assert speed_text(0) == "max" and speed_text(20) == "20 steps/s"


def test_a_stalled_worker_does_not_catch_up_with_a_burst():
    """After a 2 s stall at 20 steps/s, a fixed mark would allow 40 steps at once; the moved mark
    allows one now and the next a twentieth of a second later."""
    mark = pace_mark((0.0, 0), now=2.0, step=0, cap=20)
    assert mark == (2.0, 0)
    assert pace_delay(0, 2.0 - mark[0], 20) == 0.0
    assert pace_delay(1, 2.0 - mark[0], 20) == pytest.approx(0.05)
    assert pace_mark((0.0, 0), now=0.04, step=1, cap=20) == (0.0, 0), "on pace: the mark stays"
    assert pace_mark((0.0, 0), now=9.0, step=0, cap=0) == (0.0, 0), "no cap: nothing to move"


def test_slow_motion_caps_a_jobs_steps_per_second(pool):
    """A job capped at 20 steps/s (its steps cost nothing) takes about 20 steps a second, and
    pause and resume still answer while it waits between steps."""
    job = pool.submit(SlowSpec(0.0), TrainConfig(steps=100_000, max_steps_per_s=20))
    wait_for(job, lambda s: s.status == RunStatus.RUNNING and s.step > 0)
    first, t0 = fresh_step(job)  # both ends read as a report arrives: the same lag at each
    time.sleep(1.0)
    last, t1 = fresh_step(job)
    taken, elapsed = last - first, t1 - t0
    assert 0 < taken <= 20 * elapsed + 3, f"{taken} steps in {elapsed:.2f} s at a cap of 20/s"
    assert job.pause(wait=5).status == RunStatus.PAUSED
    assert job.resume(wait=5).status == RunStatus.RUNNING
    job.stop()
    assert job.poll().status == RunStatus.STOPPED


def test_a_negative_speed_cap_is_refused():
    assert any("speed cap" in p for p in TrainConfig(max_steps_per_s=-1).problems())


@pytest.mark.parametrize(
    ("text", "expected"),
    [("3", 3), (" 1 ", 1), ("", None), ("0", None), ("-2", None), ("two", None)],
)
def test_the_worker_count_comes_from_the_environment_when_it_is_a_positive_number(text, expected):
    from attnviz.training.jobs import training_workers

    assert training_workers(text) == expected


def test_a_pool_from_the_environment_runs_at_most_the_configured_workers():
    from attnviz.training.jobs import WORKERS_VARIABLE, pool_from_environment

    pool = pool_from_environment({WORKERS_VARIABLE: "1"}, time_cap=30)
    assert pool.max_workers == 1
    assert pool_from_environment({}, time_cap=30).max_workers == pool.backend.capacity(1)
