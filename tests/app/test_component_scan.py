"""What attnviz.ui.serve spares Streamlit's start: its scan of every installed distribution's
metadata for components declared by manifest (0.13 s before it listened; the app loses nothing
by it), and its check, at the first element drawn, for a script run outside a server."""

from __future__ import annotations

import importlib.metadata

from streamlit.components.v2 import manifest_scanner
from streamlit.components.v2.component_manager import BidiComponentManager

from attnviz.ui.serve import skip_component_scan, skip_run_check


def test_the_runtime_finds_its_components_without_reading_every_package(monkeypatch):
    scan = manifest_scanner.scan_component_manifests
    monkeypatch.setattr(manifest_scanner, "scan_component_manifests", scan)  # put back after
    read = []
    monkeypatch.setattr(importlib.metadata, "distributions", lambda: read.append(1) or [])
    skip_component_scan()
    manager = BidiComponentManager()
    manager.discover_and_register_components(start_file_watching=False)  # what Runtime calls
    assert read == []  # no installed distribution was looked at
    monkeypatch.undo()
    assert scan() == []  # and here, where the app's requirements are installed, none has one


def test_the_first_element_drawn_does_not_look_for_a_repl(monkeypatch):
    """attnviz.ui.serve.skip_run_check: Streamlit's check whether a script runs outside a
    server (inspect.stack over every loaded module) counts as done."""
    from streamlit import delta_generator, env_util

    monkeypatch.setattr(delta_generator, "_use_warning_has_been_displayed", False)  # put back
    looked = []
    monkeypatch.setattr(env_util, "is_repl", lambda: looked.append(1) or False)
    skip_run_check()
    delta_generator._maybe_print_use_warning()  # what the first element drawn calls
    assert looked == []
