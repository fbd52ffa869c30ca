"""The light install: `pip install .` is the engine (scenes, figures, the notebook API, offline
HTML) and `pip install ".[app]"` adds the server. The pins are split the same way
(requirements-engine.txt, then requirements.txt on top), each package listed once; with the app's
packages absent, notebooks still draw and `attnviz serve` says which extra to install."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib

import pytest

from tests.support.pages import ROOT

APP_MODULES = ("streamlit", "sqlalchemy", "segno", "markdown_it", "mdit_py_plugins", "latex2mathml")


def _name(requirement: str) -> str:
    """The distribution's normalised name from `name[extra]>=x` or `name==x  # comment`."""
    return re.split(r"[\s\[<>=;#]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _pins(file: str) -> set[str]:
    lines = (ROOT / file).read_text().splitlines()
    return {_name(line) for line in lines if line.strip() and not line.startswith(("#", "-r"))}


def test_the_engine_and_the_app_list_each_pinned_package_once():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    engine = [_name(r) for r in project["dependencies"]]
    app = [_name(r) for r in extras["app"] + extras["postgres"]]
    assert len(engine + app) == len(set(engine + app)), "a package listed twice"
    assert set(engine) == _pins("requirements-engine.txt")
    assert set(app) == _pins("requirements.txt")
    assert (ROOT / "requirements.txt").read_text().count("-r requirements-engine.txt") == 1
    assert not {m.replace("_", "-") for m in APP_MODULES} & set(engine)


LIGHT = f"""
import sys
for name in {APP_MODULES!r}:
    sys.modules[name] = None  # as if `pip install .` left them out
import numpy as np
import attnviz as av
from attnviz.api.cli import main
weights = np.full((2, 3, 4, 4), 0.25)  # (L, H, T, T)
view = av.head_view(weights, ["a", "b", "c", "d"])
print("head view html", len(view.html()) > 1000)
print("soft select views", sorted(av.scene("soft-select").views())[:2])
try:
    main(["serve"])
except SystemExit as err:
    print("serve exit", err.code)
"""


@pytest.mark.slow
def test_notebooks_draw_without_the_apps_packages_and_serve_names_the_extra():
    run = subprocess.run(
        [sys.executable, "-c", LIGHT], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "head view html True" in run.stdout
    assert "soft select views ['" in run.stdout
    assert "serve exit 2" in run.stdout
    assert "pip install 'attnviz[app]'" in run.stderr
    assert "streamlit" in run.stderr.split("needs the app's packages")[1]
