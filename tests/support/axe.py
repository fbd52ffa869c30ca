"""axe-core in Chromium (issue 42: WCAG 2.1 AA): the npm package pinned in package.json (`npm ci`;
scripts/test.sh installs it) injected into a page, run with the rules tagged wcag2a, wcag2aa,
wcag21a and wcag21aa, its violations returned as plain data and described for a failure."""

from __future__ import annotations

from tests.support.pages import ROOT

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
RULES = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}
RUN_AXE = """(rules) => axe.run(document, {...rules, resultTypes: ['violations']}).then((r) =>
  r.violations.map((v) => ({id: v.id, impact: v.impact, count: v.nodes.length,
    targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ').slice(-160)),
    summary: (v.nodes[0].failureSummary || '').split('\\n').slice(0, 2).join(' ')})))"""


def violations(tab) -> list[dict]:
    """axe's violations of the WCAG 2.1 A/AA rules on the page as it is now: rule id, impact,
    how many elements, the first three elements' selectors and the first one's reason."""
    if not AXE.exists():
        raise FileNotFoundError(f"{AXE} is missing: run `npm ci` (scripts/test.sh does)")
    if not tab.evaluate("!!window.axe"):  # once per document (a page switch keeps it)
        tab.add_script_tag(path=str(AXE))
    return tab.evaluate(RUN_AXE, RULES)


def described(found: dict[str, list[dict]]) -> str:
    """The violations of each state, one line per rule, its first targets under it."""
    lines = []
    for state, items in found.items():
        for v in items:
            lines.append(
                f"{state}: {v['id']} ({v['impact']}, {v['count']} elements): {v['summary']}"
            )
            lines += [f"    {target}" for target in v["targets"]]
    return "\n".join(lines)
