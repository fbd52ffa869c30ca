"""The package people install: the wheel built from this checkout holds the console script,
the static files, the lessons and the app's pages; installed into a fresh virtual environment
(its dependencies from this machine's site-packages), `attnviz --help` and `attnviz export` work
from a folder outside the repository."""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from tests.support.pages import ROOT, app_pages

pytestmark = pytest.mark.slow
SOURCES = (
    "attnviz",
    "pages",
    "lessons",
    ".streamlit",
    "app.py",
    "setup.py",
    "pyproject.toml",
    "README.md",
)


def build_wheel(work: Path) -> Path:
    """The wheel of a copy of the checkout (the build leaves build/ and *.egg-info behind)."""
    source = work / "src"
    for name in SOURCES:
        src, dst = ROOT / name, source / name
        if src.is_dir():
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "--disable-pip-version-check",
            ".",
            "-w",
            str(work / "dist"),
        ],
        cwd=source,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = (work / "dist").glob("attnviz-*.whl")
    return wheel


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


def test_the_wheel_holds_the_script_static_files_lessons_and_pages(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    entry = zipfile.ZipFile(wheel).read("attnviz-0.1.0.dist-info/entry_points.txt").decode()
    scripts = configparser.ConfigParser()
    scripts.read_string(entry)
    assert scripts["console_scripts"]["attnviz"] == "attnviz.api.cli:main"
    expected = {f"attnviz/_app/{path}" for path, _, _ in app_pages()} | {
        "attnviz/_app/app.py",
        "attnviz/_app/.streamlit/config.toml",
        "attnviz/ui/common/head_view/head_view.js",
    }
    expected |= {f"attnviz/_app/lessons/{p.name}" for p in (ROOT / "lessons").glob("*.toml")}
    recordings = (ROOT / "lessons" / "recordings").iterdir()  # the lessons' recorded runs
    expected |= {f"attnviz/_app/lessons/recordings/{p.name}" for p in recordings}
    expected |= {f"attnviz/ui/static/{p.name}" for p in (ROOT / "attnviz/ui/static").iterdir()}
    expected |= {f"attnviz/data/{p.name}" for p in (ROOT / "attnviz/data").glob("*.txt")}
    assert expected - names == set()
    assert not any(name.startswith(("tests/", "pages/", "lessons/")) for name in names)


def test_installed_in_a_fresh_venv_it_runs_outside_the_repository(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, system_site_packages=True, with_pip=False)
    python = env_dir / "bin" / "python"
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    install = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            "--disable-pip-version-check",
            str(wheel),
        ],
        capture_output=True,
        text=True,
        env=clean,
    )
    assert install.returncode == 0, install.stderr
    script = env_dir / "bin" / "attnviz"
    where = subprocess.run(
        [str(python), "-c", "import attnviz; print(attnviz.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=clean,
    )
    assert where.stdout.startswith(str(env_dir)), where.stdout + where.stderr
    helped = subprocess.run(
        [str(script), "--help"], cwd=tmp_path, capture_output=True, text=True, env=clean
    )
    assert helped.returncode == 0 and "export" in helped.stdout and "handout" in helped.stdout
    out = tmp_path / "view.html"
    exported = subprocess.run(
        [str(script), "export", "soft-select?ss_temp=0.05", str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=clean,
    )
    assert exported.returncode == 0, exported.stderr
    assert "ss_temp = 0.05" in out.read_text() and "figures" in exported.stdout
    bad = subprocess.run(
        [str(script), "export", "nope", str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=clean,
    )
    assert bad.returncode == 2 and "no page 'nope'" in bad.stderr
