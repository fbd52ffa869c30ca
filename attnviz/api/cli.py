"""The `attnviz` command: start the app, write a lesson's handout, export a page's view.

    attnviz                                  # the app on http://localhost:8501
    attnviz serve --port 8600 --lecture      # lecture mode on by default
    attnviz handout 01_select_to_self_attention handout.html   # a bundled lesson or a .toml file
    attnviz export '<page>?<setting>=<value>' view.html   # as the app's address bar holds it

The app's script (app.py), its pages and its Streamlit settings are found beside the package: in
a checkout, the repository root; in an installed wheel, attnviz/_app (copied there by setup.py's
build step). Bad input exits with status 2 and one line saying why; so does `serve` or `handout`
on the light install (`pip install .`, the engine alone), naming the extra that adds the app.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tomllib
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]  # attnviz/
LECTURE_ENV = (
    "ATTNVIZ_LECTURE"  # "1": lecture mode on at a session's start (attnviz.ui.common.sidebar)
)


def app_dir() -> Path:
    """The folder holding app.py, pages/ and .streamlit/: the checkout's root, else the copy
    inside the installed package."""
    for folder in (PACKAGE.parent, PACKAGE / "_app"):
        if (folder / "app.py").is_file() and (folder / "pages").is_dir():
            return folder
    raise SystemExit("attnviz: the app's files (app.py, pages/) are missing from this install")


def config_flags(folder: Path) -> list[str]:
    """The app's .streamlit/config.toml as `streamlit run` flags, so it applies from any
    working directory (Streamlit itself reads only ./.streamlit)."""
    path = folder / ".streamlit" / "config.toml"
    if not path.is_file():
        return []
    table = tomllib.loads(path.read_text("utf-8"))
    flags = []
    for section, options in table.items():
        for key, value in options.items():
            text = str(value).lower() if isinstance(value, bool) else str(value)
            flags.append(f"--{section}.{key}={text}")
    return flags


APP_PACKAGES = {  # import name -> the package the app extra installs
    "streamlit": "streamlit",
    "markdown_it": "markdown-it-py",
    "mdit_py_plugins": "mdit-py-plugins",
    "latex2mathml": "latex2mathml",
    "sqlalchemy": "SQLAlchemy",
    "segno": "segno",
}


def need_app(command: str) -> None:
    """Fail with the install command when the app's packages are missing (the light install)."""
    missing = [pkg for name, pkg in APP_PACKAGES.items() if importlib.util.find_spec(name) is None]
    if missing:
        fail(
            f"`attnviz {command}` needs the app's packages ({', '.join(missing)} not installed): "
            "pip install 'attnviz[app]' (in a checkout: pip install -r requirements.txt)"
        )


def serve(port: int | None, lecture: bool, extra: list[str]) -> None:
    """Start the app (attnviz.ui.serve's fixed `streamlit run`) from its folder's app.py."""
    need_app("serve")
    from attnviz.ui import serve as server

    folder = app_dir()
    if lecture:
        os.environ[LECTURE_ENV] = "1"
    options = [*config_flags(folder), *extra]
    if port is not None:
        options.append(f"--server.port={port}")
    server.main(options, app=str(folder / "app.py"))


def handout(lesson: str, out: Path) -> None:
    """A lesson's handout: `lesson` is a .toml file or a bundled lesson's name (its file stem,
    or the stem's number: '01')."""
    need_app("handout")
    from attnviz.lessons import handout as lesson_handout
    from attnviz.lessons.loader import LESSONS_DIR

    path = Path(lesson)
    if not path.is_file():
        found = sorted(LESSONS_DIR.glob(f"{lesson}*.toml"))
        if len(found) != 1:
            names = ", ".join(p.stem for p in sorted(LESSONS_DIR.glob("*.toml")))
            fail(f"no lesson file or bundled lesson {lesson!r}; the bundled lessons: {names}")
        path = found[0]
    try:
        lesson_handout.main([str(path), str(out)])
    except SystemExit as err:  # a lesson that cannot be read: its message, status 2
        if isinstance(err.code, str):
            fail(err.code)
        raise


def export(link: str, out: Path) -> None:
    """A page's view (its link's settings) as one standalone HTML file."""
    from attnviz.api.scenes import page_link
    from attnviz.topics.scene import SceneInputError

    try:
        view = page_link(link)
        size = view.export_html(out)
    except SceneInputError as err:
        fail(f"no export: {err}")
    except OSError as err:
        fail(f"no export: cannot write {out}: {err.strerror or err}")
    print(f"{out}: {len(view.views())} figures, {size / 1e6:.1f} MB")


def fail(message: str) -> None:
    print(f"attnviz: {message}", file=sys.stderr)
    raise SystemExit(2)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="attnviz", description="AttnViz: see, poke and train attention."
    )
    commands = top.add_subparsers(dest="command", metavar="{serve,handout,export}")
    run = commands.add_parser("serve", help="start the app (the default command)")
    run.add_argument("--port", type=int, help="the server's port (default 8501)")
    run.add_argument("--lecture", action="store_true", help="lecture mode on by default")
    hand = commands.add_parser("handout", help="write a lesson as one offline HTML file")
    hand.add_argument("lesson", help="a lesson .toml file or a bundled lesson's name ('01')")
    hand.add_argument("out", type=Path, help="the HTML file to write")
    exp = commands.add_parser("export", help="write a page's view as one offline HTML file")
    exp.add_argument("link", help="a page and its link's query, as the app's address bar holds it")
    exp.add_argument("out", type=Path, help="the HTML file to write")
    return top


def main(argv: list[str] | None = None) -> None:
    """The console script `attnviz`."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0].startswith("--port") or argv[0] == "--lecture":
        argv = ["serve", *argv]
    args, extra = parser().parse_known_args(argv)
    if extra and args.command != "serve":
        parser().error(f"unrecognized arguments: {' '.join(extra)}")
    if args.command == "serve":
        serve(args.port, args.lecture, extra)
    elif args.command == "handout":
        handout(args.lesson, args.out)
    else:
        export(args.link, args.out)


if __name__ == "__main__":
    main()
