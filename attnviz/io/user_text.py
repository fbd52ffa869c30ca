"""The one escaper for text a person typed or a link carried, on its way into Markdown.

Streamlit renders Markdown with GitHub's extensions: a bare `www.x.y`, `http://…`, `mailto:` or
`a@b.c` becomes a link even when its characters are backslash-escaped. `md_literal` escapes every
Markdown special character and breaks each of those autolink triggers with an invisible word
joiner (U+2060), so the text is shown exactly as typed and never as a link, an image, markup or a
formula.
"""

from __future__ import annotations

import re

MARKDOWN_SPECIALS = "\\`*_{}[]()<>#+-.!|~$:@&="
JOINER = "\u2060"  # WORD JOINER: invisible, and no autolink pattern runs across it
# what GFM's literal autolinks start from: www., a scheme, an e-mail's @
_TRIGGERS = re.compile(r"(?i)(www)(\.)|(https?|mailto|xmpp|ftp)(:)|(\w)(@)")


def _break_triggers(text: str) -> str:
    return _TRIGGERS.sub(lambda m: JOINER.join(g for g in m.groups() if g is not None), text)


def md_literal(text: object, limit: int | None = None) -> str:
    """`text` as Markdown that shows it literally (cut to `limit` characters with "…" first)."""
    text = str(text)
    if limit is not None and len(text) > limit:
        text = text[:limit] + "…"
    shown = (c if c.isprintable() else " " for c in text)  # no line break, tab or control code
    text = _break_triggers("".join(shown))
    return "".join("\\" + c if c in MARKDOWN_SPECIALS else c for c in text)
