"""What a server pays before its first page: the home page and the shared sidebar must not import
torch (1–2 s), the device list is read without it on a CPU-only build, and the bundled
pretrained model is loaded once per process, in the background."""

import ast
import subprocess
import sys

import pytest
import torch

from attnviz.training import devices
from tests.support.pages import ROOT


def test_the_first_page_imports_no_torch():
    code = (
        "import sys\n"
        "import attnviz.topics.registry, attnviz.ui.common.here, attnviz.ui.common.sidebar\n"
        "import attnviz.ui.lecture.step_export, attnviz.ui.common.boundary\n"
        "import attnviz.ui.warm_up, attnviz.ui.lecture.student\n"
        "from attnviz.training.devices import available_devices\n"
        "print(available_devices())\n"
        "print('torch' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    listed, torch_loaded = done.stdout.split("\n")[:2]
    assert torch_loaded == str(devices._build_has_gpu_support())  # imported only for a GPU build
    assert listed.startswith("['cpu'")


HOME_RUN = """
import sys
from tests.support.apptest import open_page
at = open_page("pages/home.py")
print(not at.exception, "torch" in sys.modules, "sklearn" in sys.modules)
"""


def test_the_home_page_runs_without_torch_or_scikit_learn():
    """A cold server's first screen: home's run (its links, the first lesson's start, the three
    lines of Python) loaded every lesson's scenes and the text scene before (2 s of imports)."""
    done = subprocess.run(
        [sys.executable, "-c", HOME_RUN], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    gpu_build = str(devices._build_has_gpu_support())
    assert done.stdout.split() == ["True", gpu_build, "False"]


def test_the_build_check_agrees_with_torch():
    built_for_gpu = torch.version.cuda is not None or getattr(torch.version, "hip", None)
    assert devices._build_has_gpu_support() == bool(built_for_gpu)


def test_the_device_list_agrees_with_torch():
    expected = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    mps = getattr(torch.backends, "mps", None)
    expected += ["mps"] if mps is not None and mps.is_available() else []
    devices.available_devices.cache_clear()
    assert devices.available_devices() == expected
    assert devices.resolve_device("cuda") == ("cuda" if "cuda" in expected else "cpu")


# a spy on the import system: the thread that first asks for torch, which it is then refused (so
# the test does not pay for torch and the model)
WARM_UP_SPY = """
import sys, threading
asked = []
class Spy:
    def find_spec(self, name, path=None, target=None):
        if name == "torch":
            asked.append(threading.current_thread().name)
            raise ImportError("refused by the test")
sys.meta_path.insert(0, Spy())
from attnviz.ui import warm_up
warm_up.DELAY_S = 0  # the server pauses before warming up: not needed here
thread = warm_up.warm_up_server()
thread.join(30)
print(asked == [warm_up.THREAD_NAME], thread.is_alive())
"""


def test_the_warm_up_imports_torch_on_its_own_thread():
    """The first page's script run ends without waiting ~0.9 s for torch: the warm-up imports
    the pretrained engine on its thread, not on the caller's."""
    done = subprocess.run(
        [sys.executable, "-c", WARM_UP_SPY], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False"]  # asked on the warm-up thread only


# a spy on the import system: the threads that ask for pandas and SQLAlchemy, before and after the
# server's preload has run and its gate was passed
PRELOAD_SPY = """
import sys, threading
asked = set()
class Spy:
    def find_spec(self, name, path=None, target=None):
        if name in ("pandas", "sqlalchemy"):
            asked.add(threading.current_thread().name)
sys.meta_path.insert(0, Spy())
from attnviz.ui import preload
preload.wait()  # not started (a bare `streamlit run`): returns at once, nothing imported
print("pandas" in sys.modules, asked == set())
preload.start()
preload.wait()
print(asked == {"attnviz-preload"}, "pandas" in sys.modules, "sqlalchemy" in sys.modules)
"""


def test_the_server_preloads_pandas_on_its_own_thread_before_any_session():
    """attnviz.ui.serve starts the preload; app.py's first statements wait for it, so no session
    meets pandas half made and the first page's run does not pay for it."""
    done = subprocess.run(
        [sys.executable, "-c", PRELOAD_SPY], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True", "True", "True", "True"]
    body = ast.parse((ROOT / "app.py").read_text(encoding="utf-8")).body[1:]  # after the docstring
    assert [ast.unparse(statement) for statement in body[:2]] == [
        "from attnviz.ui import preload",
        "preload.wait()",
    ]


@pytest.mark.slow
def test_the_bundled_model_is_warmed_once_in_the_background():
    from attnviz.topics.pretrained import model

    called = []
    thread = model.warm_in_background("Warm up, please.", also=(lambda: called.append(1),))
    thread.join(timeout=120)
    assert called == [1]  # the further warm-up steps ran after the model
    assert not thread.is_alive()
    assert model.bundled_model_ready()
    first = model.bundled_model()
    assert model.bundled_model() is first  # loaded once, shared
    assert first.extract("a b").attentions.shape[:2] == (6, 12)  # MiniLM: 6 layers × 12 heads
