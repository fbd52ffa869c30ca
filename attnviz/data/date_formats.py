"""Human date formats of the dates task: how a calendar day is written in each, and a reference
parser that reads such text back to ISO.

The writer (`render`) fills f-string templates; the reader (`read_date`) is written separately,
one explicit regex per format, so each can check the other. Years run FIRST_YEAR..LAST_YEAR; a
two-digit year is read in that window (50..99 → 1950..1999, 00..49 → 2000..2049). The reader
ignores case and accepts a day with or without a leading zero, "sept" for "sep" and a
three-letter weekday ("mon") for the full one.
"""

from __future__ import annotations

import re
from datetime import date

FIRST_YEAR, LAST_YEAR = 1950, 2049
FIRST_DAY, LAST_DAY = date(FIRST_YEAR, 1, 1), date(LAST_YEAR, 12, 31)
MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

# Every format, with 23 November 2026 (a Monday) written in it, lower case.
FORMATS: dict[str, str] = {
    "d mon yyyy": "23 nov 2026",
    "d month yyyy": "23 november 2026",
    "month d, yyyy": "november 23, 2026",
    "mon d yyyy": "nov 23 2026",
    "dd/mm/yyyy": "23/11/2026",
    "dd.mm.yy": "23.11.26",
    "weekday, d month yyyy": "monday, 23 november 2026",
    "dth of month yyyy": "23rd of november 2026",
}
FORMAT_NAMES = tuple(FORMATS)
WORDY = frozenset(name for name, example in FORMATS.items() if re.search("[a-z]{3}", example))

_D, _Y4, _Y2, _WORD = r"(?P<d>\d{1,2})", r"(?P<y>\d{4})", r"(?P<y>\d{2})", r"[a-z]+"
_M = rf"(?P<m>{_WORD})"
_PATTERNS: dict[str, re.Pattern[str]] = {
    name: re.compile(pattern)
    for name, pattern in {
        "d mon yyyy": rf"{_D} (?P<m>[a-z]{{3,4}}) {_Y4}",
        "d month yyyy": rf"{_D} {_M} {_Y4}",
        "month d, yyyy": rf"{_M} {_D}, {_Y4}",
        "mon d yyyy": rf"(?P<m>[a-z]{{3,4}}) {_D} {_Y4}",
        "dd/mm/yyyy": rf"{_D}/(?P<mm>\d{{1,2}})/{_Y4}",
        "dd.mm.yy": rf"{_D}\.(?P<mm>\d{{1,2}})\.{_Y2}",
        "weekday, d month yyyy": rf"(?P<w>{_WORD}), {_D} {_M} {_Y4}",
        "dth of month yyyy": rf"{_D}(?:st|nd|rd|th) of {_M} {_Y4}",
    }.items()
}
_MONTH_WORDS = {
    **{m: i + 1 for i, m in enumerate(MONTHS)},
    **{m[:3]: i + 1 for i, m in enumerate(MONTHS)},
    "sept": 9,
}


def ordinal(day: int) -> str:
    """1 → "1st", 2 → "2nd", 11 → "11th", 23 → "23rd"."""
    if 11 <= day % 100 <= 13:
        return f"{day}th"
    return f"{day}{({1: 'st', 2: 'nd', 3: 'rd'}).get(day % 10, 'th')}"


def capitalise(text: str) -> str:
    """Capitalise the month and weekday names: "23rd of november 2026" → "23rd of November 2026"."""
    return " ".join(w.capitalize() if w[:1].isalpha() and w != "of" else w for w in text.split(" "))


def render(day: date, fmt: str, capitalised: bool = False) -> str:
    """`day` written in format `fmt` (a key of FORMATS), names capitalised or all lower case."""
    d, m, y = day.day, day.month, day.year
    month, mon, weekday = MONTHS[m - 1], MONTHS[m - 1][:3], WEEKDAYS[day.weekday()]
    texts = {
        "d mon yyyy": f"{d} {mon} {y}",
        "d month yyyy": f"{d} {month} {y}",
        "month d, yyyy": f"{month} {d}, {y}",
        "mon d yyyy": f"{mon} {d} {y}",
        "dd/mm/yyyy": f"{d:02d}/{m:02d}/{y}",
        "dd.mm.yy": f"{d:02d}.{m:02d}.{y % 100:02d}",
        "weekday, d month yyyy": f"{weekday}, {d} {month} {y}",
        "dth of month yyyy": f"{ordinal(d)} of {month} {y}",
    }
    if fmt not in texts:
        raise ValueError(f"unknown date format {fmt!r}; choose one of {', '.join(FORMAT_NAMES)}")
    return capitalise(texts[fmt]) if capitalised else texts[fmt]


def _year(digits: str) -> int:
    """A four-digit year as is; a two-digit one in the FIRST_YEAR..FIRST_YEAR+99 window."""
    year = int(digits)
    if len(digits) == 2:
        year += 100 * (FIRST_YEAR // 100) if year >= FIRST_YEAR % 100 else 100 * (LAST_YEAR // 100)
    return year


def _match_fields(text: str) -> tuple[int, int, int, str | None] | None:
    """(year, month, day, weekday word or None) of the first format whose regex and month word
    fit the whole (lower-cased) text; None when none does. The numbers are not yet checked."""
    for pattern in _PATTERNS.values():
        found = pattern.fullmatch(text.lower())
        if not found:
            continue
        parts = found.groupdict()
        month = int(parts["mm"]) if parts.get("mm") else _MONTH_WORDS.get(parts["m"])
        if month is not None:
            return _year(parts["y"]), month, int(parts["d"]), parts.get("w")
    return None


def read_date(text: str) -> tuple[date | None, str]:
    """(the day `text` names, "") or (None, why it is not a date the task can read)."""
    fields = _match_fields(text)
    if fields is None:
        return None, "not in any of the task's formats, e.g. " + FORMATS["d mon yyyy"]
    year, month, day, weekday = fields
    try:
        found = date(year, month, day)
    except ValueError:
        return None, f"{year}-{month:02d}-{day:02d} is not a day of the calendar"
    if not FIRST_YEAR <= year <= LAST_YEAR:
        return None, f"the year {year} is outside the task's {FIRST_YEAR}–{LAST_YEAR}"
    named = WEEKDAYS[found.weekday()]
    if weekday is not None and weekday not in (named, named[:3]):
        return None, f"{found.isoformat()} is a {named.capitalize()}"
    return found, ""


def parse_human_date(text: str) -> str | None:
    """The ISO form (YYYY-MM-DD) of a date written in one of FORMATS, or None if it is not one."""
    found, _ = read_date(text)
    return found.isoformat() if found else None
