"""Print the product's import graph: modules, arrows between them and the import cycles.

Reads app.py, pages/ and attnviz/ with `ast` (imports at any depth, function-level ones too;
nothing is run). Usage: python scripts/import_graph.py [--cycles]
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def product_files() -> list[Path]:
    return [
        ROOT / "app.py",
        *sorted((ROOT / "pages").glob("*.py")),
        *sorted(ROOT.glob("attnviz/**/*.py")),
    ]


def arrows(modules: set[str], path: Path) -> set[str]:
    """The product modules `path` imports (the deepest known module of each import)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for name in names:
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name:
                out.add(name)
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    sys.setrecursionlimit(10_000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def main() -> None:
    files = {module_name(p): p for p in product_files()}
    graph = {m: arrows(set(files), p) - {m} for m, p in files.items()}
    # a package's __init__ is imported on the way to its modules: not an arrow of its own
    graph = {m: {w for w in ws if not m.startswith(w + ".")} for m, ws in graph.items()}
    found = cycles(graph)
    print(f"{len(graph)} modules, {sum(map(len, graph.values()))} arrows, {len(found)} cycles")
    for part in found:
        print("  cycle:", " <-> ".join(part))


if __name__ == "__main__":
    main()
