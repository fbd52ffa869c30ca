"""The thread policy (attnviz.core.threads): OpenMP's threads sleep while they wait unless the
environment says otherwise, set by `import attnviz` before torch loads; ATTNVIZ_THREADS sets
torch's thread count."""

from __future__ import annotations

import subprocess
import sys

from attnviz.core.threads import apply_thread_policy, threads_asked
from tests.support.pages import ROOT

BEFORE = "import os, sys, attnviz; print('torch' in sys.modules, os.environ['OMP_WAIT_POLICY'])"
COUNT = "import attnviz, torch; print(torch.get_num_threads())"


def test_the_wait_policy_is_passive_unless_the_environment_says_otherwise():
    env = {}
    apply_thread_policy(env)
    assert env == {"OMP_WAIT_POLICY": "PASSIVE"}
    env = {"OMP_WAIT_POLICY": "ACTIVE"}
    apply_thread_policy(env)
    assert env == {"OMP_WAIT_POLICY": "ACTIVE"}


def test_the_thread_count_is_read_only_when_it_is_a_positive_number():
    read = [threads_asked({"ATTNVIZ_THREADS": t}) for t in ("3", " 1 ", "0", "torch", "-2", "")]
    assert read == [3, 1, None, None, None, None]


def test_importing_attnviz_sets_the_policy_before_torch_loads():
    """In a new process (OpenMP reads its wait policy once, when torch loads): attnviz first."""
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    assert _run(BEFORE, env) == ["False", "PASSIVE"]  # set, and torch not loaded yet
    assert _run(COUNT, env | {"ATTNVIZ_THREADS": "1"}) == ["1"]


def _run(code: str, env: dict) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return out.stdout.split()
