"""Where things are in a lesson's TOML text, so an error can name its line.

tomllib reports the line of a syntax error only; for a file that parses but says something wrong
(an unknown page, a bad value) the loader asks `SourceMap` for the line of a top-level key, of a
step's [[steps]] header, or of a key inside that step, its [steps.params] or [steps.question].
"""

from __future__ import annotations

import re

STEP_HEADER = re.compile(r"^\s*\[\[\s*steps\s*\]\]")
# a table header alone on its line (a Markdown link "[text](url)" in a narration is not one)
ANY_HEADER = re.compile(r"^\s*\[\[?\s*[\w.\"' -]+\]\]?\s*(#.*)?$")
SYNTAX_LINE = re.compile(r"at line (\d+)")


def _sub_header(section: str) -> re.Pattern[str]:
    return re.compile(r"^\s*\[\s*steps\s*\.\s*" + re.escape(section) + r"\s*\]")


def _key(key: str) -> re.Pattern[str]:
    quoted = re.escape(key)
    return re.compile(rf"^\s*(?:{quoted}|\"{quoted}\"|'{quoted}')\s*=")


class SourceMap:
    """Line numbers (from 1) of the headers and keys of a lesson's text."""

    def __init__(self, text: str):
        self.lines = text.splitlines()
        self.headers = [i + 1 for i, line in enumerate(self.lines) if STEP_HEADER.match(line)]

    def top_key(self, key: str) -> int | None:
        """The line of a top-level key (before the first [[steps]])."""
        end = self.headers[0] - 1 if self.headers else len(self.lines)
        return self._find(_key(key), 1, end)

    def step(self, index: int) -> int | None:
        """The line of the index-th [[steps]] header (None if steps were written another way)."""
        return self.headers[index] if index < len(self.headers) else None

    def in_step(self, index: int, key: str, section: str = "") -> int | None:
        """The line of `key` in step `index` (section "params" / "question": in that sub-table),
        else the line of the sub-table, else of the step."""
        start = self.step(index)
        if start is None:
            return None
        end = self.headers[index + 1] - 1 if index + 1 < len(self.headers) else len(self.lines)
        if section:
            sub = self._find(_sub_header(section), start + 1, end)
            inline = self._find(_key(section), start + 1, end)
            if sub is None:
                return inline or start
            region_end = self._find(ANY_HEADER, sub + 1, end)
            found = self._find(_key(key), sub + 1, (region_end - 1) if region_end else end)
            return found or sub
        own_end = self._find(ANY_HEADER, start + 1, end)
        return self._find(_key(key), start + 1, (own_end - 1) if own_end else end) or start

    def _find(self, pattern: re.Pattern[str], first: int, last: int) -> int | None:
        for number in range(first, last + 1):
            if pattern.match(self.lines[number - 1]):
                return number
        return None


def syntax_line(message: str, text: str) -> int:
    """The line a tomllib error names ("… (at line 3, column 5)"), or the last line."""
    found = SYNTAX_LINE.search(message)
    return int(found.group(1)) if found else max(1, len(text.splitlines()))
