"""Dates and periods named in English text, for recall: "on 8 May, 2023", "in May 2023",
"May 8th", "in 2022", "last week", "3 days ago", ISO dates. Each becomes a half-open period of
days; relative ones are anchored on the caller's `today`. A month named without a year ("in July")
matches that month of any year. Plain regular expressions: no model, no network."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

_MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12,
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10,
    "nov": 11, "dec": 12,
}
_MONTH = r"(?P<{0}>January|February|March|April|May|June|July|August|September|October|November|December|" \
         r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
_DAY = r"(?P<{0}>[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_YEAR = r"(?P<{0}>(?:19|20)\d\d)"
_UNITS = {"day": 1, "week": 7, "weekend": 7, "month": 30, "year": 365}
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "a few": 3, "few": 3, "a couple of": 2, "couple of": 2}

# A month standing alone must be spelt out and capitalised: "may" and "march" are also verbs, "Jan" a name.
_PATTERNS = [
    ("iso_day", re.compile(r"\b" + _YEAR.format("y") + r"-(?P<m>\d{2})-(?P<d>\d{2})\b")),
    ("day_month", re.compile(r"\b" + _DAY.format("d") + r"\s+(?:of\s+)?" + _MONTH.format("m")
                             + r"(?:,?\s*" + _YEAR.format("y") + r")?\b", re.IGNORECASE)),
    ("month_day", re.compile(r"\b" + _MONTH.format("m") + r"\s+" + _DAY.format("d") + r"(?!\d)(?!:)"
                             + r"(?:\s*,?\s*" + _YEAR.format("y") + r")?\b", re.IGNORECASE)),
    ("month_year", re.compile(r"\b" + _MONTH.format("m") + r",?\s+(?:of\s+)?" + _YEAR.format("y") + r"\b",
                              re.IGNORECASE)),
    ("iso_month", re.compile(r"\b" + _YEAR.format("y") + r"-(?P<m>0[1-9]|1[0-2])\b(?!-)")),
    ("month", re.compile(r"\b(?P<m>January|February|March|April|May|June|July|August|September|October|November|"
                         r"December)\b")),
    ("year", re.compile(r"\b(?:in|during|since|of|for|by|until|early|late|mid|around|throughout)\s+"
                        + _YEAR.format("y") + r"\b", re.IGNORECASE)),
    ("relative_day", re.compile(r"\b(?P<w>today|yesterday|tonight|the day before yesterday)\b", re.IGNORECASE)),
    ("relative", re.compile(r"\b(?P<w>last|past|previous|this|next)\s+(?P<u>day|week|weekend|month|year)\b",
                            re.IGNORECASE)),
    ("ago", re.compile(r"\b(?P<n>\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|(?:a\s+)?few|"
                       r"(?:a\s+)?couple\s+of)\s+(?P<u>day|week|month|year)s?\s+ago\b", re.IGNORECASE)),
]
# A period stated against a date: "the week before 9 June 2023", "two weeks before August 11",
# "the Sunday before October 25, 2022", "the weekend after …", "the week of …". Read backwards from
# the date it precedes.
_ANCHOR = re.compile(
    r"\b(?:(?P<n>\d{1,2}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|a\s+couple\s+of)\s+"
    r"(?P<units>day|week|month)s?|(?:the\s+|last\s+)?(?P<unit>day|week|weekend|month|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day))\s+(?P<dir>before|after|of|prior\s+to)\s+(?:the\s+)?(?:on\s+)?$",
    re.IGNORECASE)
_ANCHOR_REACH = 40  # characters read back from a day for its anchor: "a couple of weeks before " is 25
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# Words that say a sentence is about a time, for memories that answer "when" questions: one
# pattern, as it runs over every candidate of a recall.
_MENTIONS_TIME = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|ago|recently|lately|earlier|weekend|morning|evening|afternoon|"
    r"last|next|since|(?:mon|tues|wednes|thurs|fri|satur|sun)day|(?:19|20)\d\d|\d{4}-\d{2}-\d{2}|"
    r"(?-i:January|February|March|April|May|June|July|August|September|October|November|December)|"
    r"(?:jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?\s+\d{1,2}\b|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*)\b", re.IGNORECASE)
_ASKS_WHEN = re.compile(
    r"\b(?:when|what\s+(?:time|date|day|year|month|week)|which\s+(?:year|month|day|date|week)|how\s+long\s+ago|"
    r"since\s+when)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Period:
    """Days from `start` (inclusive) to `end` (exclusive); `every_year`: the same days in any year."""

    start: date
    end: date
    text: str
    every_year: bool = False

    def distance(self, day: date) -> int:
        """Days between `day` and this period; 0 inside it."""
        start, end = self.start, self.end
        if self.every_year:
            try:
                start, end = start.replace(year=day.year), end.replace(year=day.year + (end.year - start.year))
            except ValueError:  # 29 February in a year without one
                start, end = start.replace(year=day.year, day=28), end.replace(year=day.year, day=28)
        if day < start:
            return (start - day).days
        if day >= end:
            return (day - end).days + 1
        return 0

    def gap(self, other: Period) -> int:
        """Days between two periods (of fixed years); 0 when they overlap."""
        if other.end <= self.start:
            return (self.start - other.end).days + 1
        if other.start >= self.end:
            return (other.start - self.end).days + 1
        return 0

    @property
    def days(self) -> int:
        return (self.end - self.start).days


def periods(text: str, today: date, *, anchored: bool = True) -> list[Period]:
    """Every period named in `text`, in order of appearance; overlapping phrases count once,
    the longest (most specific) first. `anchored`: a period stated against a day ("the week
    before 9 June 2023") is that period, not the day."""
    found: list[tuple[int, int, Period]] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            span = match.span()
            if any(s < span[1] and span[0] < e for s, e in taken):
                continue
            period = _period(kind, match, today)
            if period is not None:
                if anchored and period.days == 1 and (before := _ANCHOR.search(text, max(0, span[0] - _ANCHOR_REACH), span[0])):
                    period = _anchored(before, period)
                    span = (before.start(), span[1])
                taken.append(span)
                found.append((span[0], span[1], period))
    ordered = [p for _, _, p in sorted(found, key=lambda f: f[0])]
    # "between August 11 and August 15 2023": a date without a year takes the next one's.
    for i, period in enumerate(ordered):
        later = next((p for p in ordered[i + 1:] if not p.every_year), None)
        if period.every_year and later is not None:
            try:
                ordered[i] = Period(period.start.replace(year=later.start.year),
                                    period.end.replace(year=later.start.year + period.end.year - period.start.year),
                                    period.text)
            except ValueError:
                pass
    return ordered


def asks_when(text: str) -> bool:
    """A question about when something happened ("When did …", "what year …", "how long ago …")."""
    return _ASKS_WHEN.search(text) is not None


def mentions_time(text: str) -> bool:
    """Whether `text` says when something happened: a date, a period or a relative time word."""
    return _MENTIONS_TIME.search(text) is not None


def _period(kind: str, match: re.Match[str], today: date) -> Period | None:
    groups = match.groupdict()
    text = match.group(0)
    try:
        if kind in ("iso_day", "day_month", "month_day"):
            month = _month(groups["m"])
            day = int(groups["d"])
            if groups.get("y"):
                start = date(int(groups["y"]), month, day)
                return Period(start, start + timedelta(days=1), text)
            start = date(2000, month, day)  # a leap year, so 29 February is readable
            return Period(start, start + timedelta(days=1), text, every_year=True)
        if kind in ("month_year", "iso_month"):
            return _month_period(int(groups["y"]), _month(groups["m"]), text)
        if kind == "month":
            period = _month_period(2000, _month(groups["m"]), text)
            return Period(period.start, period.end, text, every_year=True)
        if kind == "year":
            year = int(groups["y"])
            return Period(date(year, 1, 1), date(year + 1, 1, 1), text)
    except ValueError:  # 31 February and the like
        return None
    if kind == "relative_day":
        back = {"today": 0, "tonight": 0, "yesterday": 1, "the day before yesterday": 2}[groups["w"].lower()]
        start = today - timedelta(days=back)
        return Period(start, start + timedelta(days=1), text)
    if kind == "relative":
        return _relative(groups["w"].lower(), groups["u"].lower(), today, text)
    if kind == "ago":
        count = _NUMBERS.get(" ".join(groups["n"].lower().split()), None)
        count = count if count is not None else int(groups["n"])
        unit = _UNITS[groups["u"].lower()]
        centre = today - timedelta(days=count * unit)
        # "3 weeks ago" is vague by about a unit either way.
        return Period(centre - timedelta(days=unit // 2), centre + timedelta(days=unit // 2 + 1), text)
    return None


def _month(name: str) -> int:
    return int(name) if name.isdigit() else _MONTHS[name.lower().rstrip(".")]


def _month_period(year: int, month: int, text: str) -> Period:
    end = date(year + 1, 1, 1) if month == 12 else date(year, month + 1, 1)
    return Period(date(year, month, 1), end, text)


def _relative(which: str, unit: str, today: date, text: str) -> Period:
    step = {"last": -1, "past": -1, "previous": -1, "this": 0, "next": 1}[which]
    if unit == "day":
        start = today + timedelta(days=step)
        return Period(start, start + timedelta(days=1), text)
    if unit in ("week", "weekend"):
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=step)
        if unit == "weekend":
            return Period(monday + timedelta(days=5), monday + timedelta(days=7), text)
        return Period(monday, monday + timedelta(days=7), text)
    if unit == "month":
        month_index = today.year * 12 + today.month - 1 + step
        return _month_period(month_index // 12, month_index % 12 + 1, text)
    year = today.year + step
    return Period(date(year, 1, 1), date(year + 1, 1, 1), text)


def _anchored(match: re.Match[str], day: Period) -> Period:
    """The period `match` ("the week before", "two weeks after", "the Sunday before") states
    against `day`."""
    direction = " ".join(match.group("dir").lower().split())
    sign = 1 if direction == "after" else -1
    text = match.group(0) + day.text
    anchor = day.start
    if match.group("units"):
        words = " ".join(match.group("n").lower().split())
        count = _NUMBERS.get(words, None) or int(words)
        unit = _UNITS[match.group("units").lower()]
        centre = anchor + timedelta(days=sign * count * unit)
        return Period(centre - timedelta(days=unit // 2), centre + timedelta(days=unit // 2 + 1), text, day.every_year)
    unit = match.group("unit").lower()
    if unit in _WEEKDAYS:
        offset = (_WEEKDAYS.index(unit) - anchor.weekday()) % 7 if sign > 0 else (anchor.weekday() - _WEEKDAYS.index(unit)) % 7
        start = anchor + timedelta(days=sign * (offset or 7))
        return Period(start, start + timedelta(days=1), text, day.every_year)
    if direction == "of":
        if unit in ("week", "weekend"):
            return _relative("this", unit, anchor, text)
        return day
    if unit == "weekend":  # the Saturday and Sunday just before (after) the day
        days = (anchor.weekday() - 5) % 7 or 7 if sign < 0 else (5 - anchor.weekday()) % 7 or 7
        saturday = anchor + timedelta(days=sign * days)
        return Period(saturday, saturday + timedelta(days=2), text, day.every_year)
    length = {"day": 1, "week": 7, "month": 30}[unit]
    start = anchor - timedelta(days=length) if sign < 0 else day.end
    return Period(start, start + timedelta(days=length), text, day.every_year)
