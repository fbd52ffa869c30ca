"""The engine must not import streamlit (checked in a fresh interpreter)."""

import subprocess
import sys

from tests.pages import ROOT


def test_importing_the_engine_does_not_import_streamlit():
    code = (
        "import pkgutil, importlib, sys, attnviz\n"
        "mods = [m.name for m in pkgutil.walk_packages(attnviz.__path__, 'attnviz.')"
        " if not m.name.startswith('attnviz.ui')]\n"
        "[importlib.import_module(m) for m in mods]\n"
        "assert len(mods) > 5, mods\n"
        "bad = [m for m in sys.modules if m == 'streamlit' or m.startswith('streamlit.')]\n"
        "print(len(mods), 'modules;', 'streamlit loaded' if bad else 'clean')\n"
        "sys.exit(1 if bad else 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "clean" in done.stdout
