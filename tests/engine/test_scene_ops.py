"""A scene's named operations (attnviz.topics.operations): read by name or attribute, fixed once
made, the same callables for the page and for a notebook; and every `<SCENE>.ops.<name>` the UI
calls is an operation its scene declares (read from the UI's source, so a misspelt call fails
here, not in front of a class)."""

from __future__ import annotations

import ast

import pytest

import attnviz as av
from attnviz.topics.operations import Operations
from attnviz.topics.registry import scene as registry_scene
from tests.engine.test_layering import UI_FILES
from tests.support.pages import ROOT


def test_operations_by_attribute_and_by_name_and_fixed():
    ops = Operations(double=lambda x: 2 * x, name_of=str)
    assert ops.double(4) == 8 and ops["name_of"](3) == "3"
    assert ops.names() == ["double", "name_of"] and len(ops) == 2
    with pytest.raises(AttributeError, match="no operation 'triple'; there are: double, name_of"):
        ops.triple  # noqa: B018
    with pytest.raises(AttributeError, match="fixed"):
        ops.triple = len
    with pytest.raises(TypeError, match="'three' is not callable"):
        Operations(three=3)
    with pytest.raises(ValueError, match="'values' is a name the mapping itself uses"):
        Operations(values=len)


def scene_ops_calls(path) -> list[tuple[str, str, str]]:
    """(scene module, the scene's name there, op name) of each `<NAME>.ops.<op>` in a file whose
    NAME is imported from a topic's scene module (under its own name or another: `as LLM`)."""
    tree = ast.parse(path.read_text())
    imported = {
        alias.asname or alias.name: (node.module, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").endswith(".scene")
        for alias in node.names
    }
    calls = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "ops"
            and isinstance(node.value.value, ast.Name)
            and node.value.value.id in imported
        ):
            calls.append((*imported[node.value.value.id], node.attr))
    return calls


def test_every_operation_the_ui_calls_is_declared_by_its_scene():
    import importlib

    calls = [(path, call) for path in UI_FILES for call in scene_ops_calls(path)]
    assert len(calls) >= 10, "the pages' engine calls go through their scenes' ops"
    missing = []
    for path, (module, name, op) in calls:
        declared = getattr(importlib.import_module(module), name).ops
        if op not in declared:
            missing.append(f"{path.relative_to(ROOT)}: {name}.ops.{op} ({module})")
    assert missing == [], "\n".join(missing)


def test_a_notebook_reaches_the_same_operations_as_the_page():
    with_ops = [url for url in av.pages() if registry_scene(url).ops]
    assert len(with_ops) >= 5, with_ops
    for url in with_ops:
        ops = av.scene(url).ops
        assert ops is registry_scene(url).ops and ops.names(), url
