"""Start the app as `streamlit run app.py` does, with one fix: a deep link as the first request
after a start lands on its page, not in a "Page not found" dialog that traps the keyboard.

Streamlit decides on its first session whether an app uses a `pages/` folder (multipage apps of
the first kind) and runs that session as such until app.py's `st.navigation` has run once; the
first visitor's page name is looked up among the folder's file names, is not found, and the
dialog stays over the right page (streamlit #9624). This app routes with `st.navigation` only
(attnviz.ui.navigation), so it says so before the first session.

    python -m attnviz.ui.serve [streamlit run options…]
"""

from __future__ import annotations

import sys
import threading

from streamlit.runtime.pages_manager import PagesManager
from streamlit.web import cli

# what the first page's run would import (~0.5 s on a cold server): loaded while the first
# browser boots Streamlit's frontend (~0.6 s) instead; pure libraries and engine modules only,
# nothing that registers with Streamlit's runtime
PRELOAD = ("pandas", "plotly.graph_objects", "plotly.io", "sqlalchemy", "attnviz.classroom")


def preload() -> None:
    """Import PRELOAD (a failure is left for the page that needs the module)."""
    for name in PRELOAD:
        try:
            __import__(name)
        except Exception:  # noqa: BLE001, S112  the page reports it
            continue


def main(options: list[str] | None = None, app: str = "app.py") -> None:
    """`streamlit run <app>` with `options`, pages routed by st.navigation from the start
    (`app`: app.py of the working directory, or an installed package's, attnviz.cli)."""
    PagesManager.uses_pages_directory = False
    threading.Thread(target=preload, name="attnviz-preload", daemon=True).start()
    options = sys.argv[1:] if options is None else options
    cli.main(["run", app, *options], prog_name="streamlit")


if __name__ == "__main__":
    main()
