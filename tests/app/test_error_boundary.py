"""The error boundary: a page that fails shows the app's plain message (no traceback, no path)
and logs the traceback; the settings keep the Streamlit default of showing nothing else."""

from __future__ import annotations

import logging
import tomllib

from attnviz.ui.common.boundary import MESSAGE, RAISE_VARIABLE
from tests.support.apptest import open_page
from tests.support.pages import ROOT


def test_a_failing_page_shows_a_plain_message_and_logs_the_traceback(monkeypatch, caplog):
    monkeypatch.delenv(RAISE_VARIABLE)

    def broken(*args, **kwargs):
        raise RuntimeError("/srv/secret/path: boom")

    monkeypatch.setattr("attnviz.topics.soft_select.scene.soft_select", broken)
    at = open_page("pages/soft_select.py")
    with caplog.at_level(logging.ERROR, logger="attnviz"):
        at.slider(key="ss_q1").set_value(-1.7).run()  # a value no earlier run has cached
    assert not at.exception, "no traceback reaches the page"
    errors = [e.value for e in at.error]
    assert errors == [MESSAGE]
    assert "/srv/secret" not in " ".join(errors)
    assert any("boom" in r.exc_text for r in caplog.records if r.exc_text), "logged"


def test_no_error_details_reach_a_browser():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["client"]["showErrorDetails"] == "none"
