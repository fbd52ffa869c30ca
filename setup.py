"""The wheel's build step: app.py, pages/, lessons/ and .streamlit/config.toml live at the
repository root (where `streamlit run app.py` finds them); the build copies them into the
package as attnviz/_app/, where `attnviz serve` (attnviz.api.cli.app_dir) and the lesson loader
find them in an installed wheel. Everything else is in pyproject.toml."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).parent
APP_FILES = (
    "app.py",
    "pages/*.py",
    "lessons/*.toml",
    "lessons/README.md",
    "lessons/hidden_words.txt",
    "lessons/recordings/*",
    ".streamlit/config.toml",
)


class BuildWithApp(build_py):
    """build_py, plus the app's root files under attnviz/_app/."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "attnviz" / "_app"
        for pattern in APP_FILES:
            for source in sorted(ROOT.glob(pattern)):
                dest = target / source.relative_to(ROOT)
                self.mkpath(str(dest.parent))
                self.copy_file(str(source), str(dest), preserve_mode=False)


setup(cmdclass={"build_py": BuildWithApp})
