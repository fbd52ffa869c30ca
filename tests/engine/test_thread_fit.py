"""Threads fitted to the free cores (attnviz.core.threads, issue 55): a real-model operation
takes the cores other programs leave it, at most the policy's count, and gives the count back."""

from __future__ import annotations

from threading import Thread

import torch

from attnviz.core import threads


def test_free_cores_are_the_cores_less_the_tasks_running_besides_the_caller():
    # "running/all": 4 tasks running, the caller among them: 3 others on 2 cores
    assert threads.free_cores("0.50 0.40 0.30 4/612 9999", total=2) == 1
    assert threads.free_cores("0.50 0.40 0.30 2/612 9999", total=4) == 3
    assert threads.free_cores("0.01 0.02 0.03 1/300 42", total=2) == 2
    assert threads.free_cores("not a loadavg", total=2) is None


def test_an_operation_gets_the_free_cores_at_most_the_policys_and_gives_them_back(monkeypatch):
    monkeypatch.delenv(threads.THREADS_ENV, raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)  # the suite's 1
    before = torch.get_num_threads()
    seen = []

    @threads.fitted
    def operation() -> None:
        seen.append(torch.get_num_threads())

    monkeypatch.setattr(threads, "cores", lambda: 4)
    for free, expected in ((1, 1), (3, 3), (9, 4)):
        monkeypatch.setattr(threads, "free_cores", lambda free=free: free)
        operation()
        assert seen[-1] == expected
        assert torch.get_num_threads() == 4  # the policy's count again
    monkeypatch.setenv("OMP_NUM_THREADS", "3")  # torch's own default reads it
    operation()
    assert seen[-1] == 3
    monkeypatch.setenv(threads.THREADS_ENV, "2")  # the policy's ceiling, before OpenMP's
    operation()
    assert seen[-1] == 2
    monkeypatch.setattr(threads, "free_cores", lambda: None)  # the system does not say
    operation()
    assert seen == [1, 3, 4, 3, 2, 2]
    torch.set_num_threads(before)


def test_a_call_leaves_the_policys_count_not_the_count_it_found(monkeypatch):
    """torch keeps a count per thread, and a thread that starts while another call is fitted
    takes that call's count: putting back the count found (1) left the lens and every later
    call of a session's thread on one thread."""
    monkeypatch.delenv(threads.THREADS_ENV, raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)  # the suite's 1
    monkeypatch.setattr(threads, "cores", lambda: 2)
    monkeypatch.setattr(threads, "free_cores", lambda: 1)  # busy now: one thread for the call
    seen = []

    @threads.fitted
    def operation() -> None:
        seen.append(torch.get_num_threads())

    def session() -> None:
        torch.set_num_threads(1)  # the count this thread found: another call's
        operation()
        seen.append(torch.get_num_threads())

    before = torch.get_num_threads()
    thread = Thread(target=session)  # a session's script thread, not the test's own
    thread.start()
    thread.join(10)
    torch.set_num_threads(before)  # this process's own count (one thread for the suite)
    assert seen == [1, 2]
