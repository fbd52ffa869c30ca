"""Start the app as `streamlit run app.py` does, with one fix: a deep link as the first request
after a start lands on its page, not in a "Page not found" dialog that traps the keyboard.

Streamlit decides on its first session whether an app uses a `pages/` folder (multipage apps of
the first kind) and runs that session as such until app.py's `st.navigation` has run once; the
first visitor's page name is looked up among the folder's file names, is not found, and the
dialog stays over the right page (streamlit #9624). This app routes with `st.navigation` only
(attnviz.topics.registry), so it says so before the first session.

    python -m attnviz.ui.serve [streamlit run options…]
"""

from __future__ import annotations

import sys

from streamlit.runtime.pages_manager import PagesManager
from streamlit.web import cli

from attnviz.ui import preload


def main(options: list[str] | None = None, app: str = "app.py") -> None:
    """`streamlit run <app>` with `options`, pages routed by st.navigation from the start
    (`app`: app.py of the working directory, or an installed package's, attnviz.cli)."""
    PagesManager.uses_pages_directory = False
    preload.start()  # the heavy imports, before any session needs them
    options = sys.argv[1:] if options is None else options
    cli.main(["run", app, *options], prog_name="streamlit")


if __name__ == "__main__":
    main()
