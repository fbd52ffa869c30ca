"""Lesson text (narration, questions, titles) as safe, offline HTML for the handout: Markdown
through markdown-it-py with raw HTML off (a `<script>` a lesson writes stays text), and LaTeX
between `$…$` (inline) or `$$…$$` (display) as MathML through latex2mathml, which browsers draw
natively: no script, no font and no request to any host.

latex2mathml copies parts of its input into the MathML it writes (`\\text{<b>}` keeps the tag,
`\\style{…}` becomes a CSS `style`, `\\href` an `href`), so its output is parsed again and
rebuilt from MathML elements and presentation attributes only; a formula that cannot be
converted, or that would need anything else, is shown as its LaTeX source in `<code>`.
"""

from __future__ import annotations

import html
from functools import cache
from html.parser import HTMLParser

from latex2mathml.converter import convert
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


MATHML_TAGS = _words(
    "math mrow mi mn mo ms mtext mspace mfrac msqrt mroot mstyle merror mpadded mphantom"
    " mfenced menclose msub msup msubsup munder mover munderover mmultiscripts mprescripts"
    " none mtable mtr mtd mlabeledtr semantics annotation"
)
MATHML_ATTRIBUTES = _words(
    "display mathvariant stretchy fence separator separators lspace rspace open close"
    " columnalign columnlines columnspacing rowalign rowlines rowspacing frame framespacing"
    " displaystyle scriptlevel mathcolor mathbackground mathsize width height depth voffset"
    " minsize maxsize accent accentunder movablelimits linethickness notation symmetric form"
    " largeop columnspan rowspan equalrows equalcolumns encoding"
)
VOID_TAGS = frozenset({"mspace", "none", "mprescripts"})


class UnsafeMath(ValueError):
    """latex2mathml wrote something that is not plain presentation MathML."""


class _MathMLRebuilder(HTMLParser):
    """Re-serialise MathML keeping only known elements and presentation attributes; text is
    escaped again, so nothing in a formula's source can become a tag or a script."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in MATHML_TAGS:
            raise UnsafeMath(tag)
        kept = "".join(
            f' {name}="{html.escape(value or "")}"'
            for name, value in attrs
            if name in MATHML_ATTRIBUTES
        )
        # no xmlns: an HTML page puts <math> in MathML's namespace by itself
        self.out.append(f"<{tag}{kept}>" + (f"</{tag}>" if tag in VOID_TAGS else ""))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID_TAGS:
            self.out.append(f"</{tag}>")

    def handle_endtag(self, tag: str) -> None:
        if tag not in MATHML_TAGS:
            raise UnsafeMath(tag)
        if tag not in VOID_TAGS:
            self.out.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        self.out.append(html.escape(data, quote=False))


def safe_mathml(mathml: str) -> str:
    """`mathml` rebuilt from MathML elements and presentation attributes only (UnsafeMath for
    any other element: a `<script>` that latex2mathml copied from a `\\text{…}`)."""
    rebuilder = _MathMLRebuilder()
    rebuilder.feed(mathml)
    rebuilder.close()
    return "".join(rebuilder.out)


@cache
def math_html(latex: str, display: bool = False) -> str:
    """One formula as MathML (display: a block of its own), or its escaped source in `<code>`
    when latex2mathml cannot convert it or it needs more than presentation MathML."""
    try:
        mathml = convert(latex, display="block" if display else "inline")
        return safe_mathml(mathml)
    except Exception:  # noqa: BLE001 - latex2mathml raises many kinds; the source is shown
        return f'<code class="tex">{html.escape(latex)}</code>'


def _render_math(content: str, options: dict) -> str:
    return math_html(content.strip(), bool(options.get("display_mode")))


def _display_in_paragraph(self, tokens, idx, options, env) -> str:  # noqa: ANN001 - a rule
    """`$$…$$` inside a paragraph: a span (a `<div>` would end the paragraph), drawn as a
    block by MathML's display="block"."""
    return f'<span class="math display">{math_html(tokens[idx].content.strip(), True)}</span>'


@cache
def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.use(dollarmath_plugin, double_inline=True, renderer=_render_math)
    md.add_render_rule("math_inline_double", _display_in_paragraph)
    return md


def markdown_html(text: str) -> str:
    """Block Markdown (paragraphs, lists, tables) with math, as HTML; raw HTML stays text."""
    return _parser().render(text.strip())


def inline_html(text: str) -> str:
    """One line of Markdown with math (a title, a prompt), without a surrounding `<p>`."""
    return _parser().renderInline(text.strip())
