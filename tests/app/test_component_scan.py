"""attnviz.ui.serve.skip_component_scan: the server listens without Streamlit's scan of every
installed distribution's metadata for components declared by manifest (0.13 s before it
listened), and the app loses nothing by it."""

from __future__ import annotations

import importlib.metadata

from streamlit.components.v2 import manifest_scanner
from streamlit.components.v2.component_manager import BidiComponentManager

from attnviz.ui.serve import skip_component_scan


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
