"""No unused code in the product (issue 52): vulture over app.py, pages/ and attnviz/ reports
nothing but the names in tests/support/vulture_whitelist.py, and every name there is still one
it reports (a whitelist entry whose code was deleted or came into use goes too). The same check
from a shell:

    vulture attnviz app.py pages tests/support/vulture_whitelist.py --min-confidence 60
"""

from __future__ import annotations

import ast

from vulture import Vulture

from tests.support.pages import ROOT

PRODUCT = ("app.py", "pages", "attnviz")
WHITELIST = ROOT / "tests" / "support" / "vulture_whitelist.py"
# vulture's confidence in its finds: 60 for an unused function, class, method, variable or
# attribute, 90 for an unused import, 100 for unreachable code; 60 reports every kind
MIN_CONFIDENCE = 60


def whitelisted() -> set[str]:
    """The names the whitelist marks used (`_.name`, one per line)."""
    tree = ast.parse(WHITELIST.read_text())
    exprs = [node.value for node in tree.body if isinstance(node, ast.Expr)]
    lines = [expr for expr in exprs if not isinstance(expr, ast.Constant)]  # not the docstring
    assert all(isinstance(line, ast.Attribute) for line in lines), "one `_.name` a line"
    return {line.attr for line in lines}


def test_the_product_has_no_unused_code_but_the_whitelisted():
    scan = Vulture()
    scan.scavenge([str(ROOT / path) for path in PRODUCT])
    found = scan.get_unused_code(min_confidence=MIN_CONFIDENCE)
    listed = whitelisted()
    new = [
        f"{item.filename.relative_to(ROOT)}:{item.first_lineno}: {item.message} "
        f"({item.confidence}% confidence)"
        for item in found
        if item.name not in listed
    ]
    assert new == [], (
        "unused code: delete it, or, if something vulture does not read uses it (a test, a "
        "benchmark, a library's callback), list it in tests/support/vulture_whitelist.py with "
        "who uses it:\n" + "\n".join(new)
    )
    stale = sorted(listed - {item.name for item in found})
    assert stale == [], f"whitelisted, but vulture finds them used or gone: {stale}"
    assert len(scan.defined_funcs) > 500  # the product was read
