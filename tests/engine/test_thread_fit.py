"""Threads fitted to the free cores (attnviz.core.threads, issue 55): a real-model operation
takes the cores other programs leave it, at most the policy's count, and gives the count back."""

from __future__ import annotations

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
        assert torch.get_num_threads() == before
    monkeypatch.setenv(threads.THREADS_ENV, "2")  # the policy's ceiling
    operation()
    assert seen[-1] == 2
    monkeypatch.setattr(threads, "free_cores", lambda: None)  # the system does not say
    operation()
    assert seen == [1, 3, 4, 2, 2]
