"""What a commit message says about a dropped name: whether it names it, says why, or names
what is used instead; and the short why a drafted reason quotes."""

from __future__ import annotations

import re

SIGNAL_WORDS = re.compile(
    r"\b(?:drop(?:s|ped|ping)?|remov(?:e|es|ed|ing)|replac(?:e|es|ed|ing)|revert(?:s|ed)?|broken|break(?:s|ing)?|"
    r"slow(?:er)?|deprecat(?:e|ed|ion)|vulnerab(?:le|ility)|cve-\d+|migrat(?:e|ed|ion)|switch(?:ed)?|"
    r"get rid|ditch(?:ed)?|abandon(?:ed)?|instead)\b",
    re.IGNORECASE,
)
REVERTS = re.compile(r"This reverts commit ([0-9a-f]{7,40})")
# What a commit message says beyond its why: trailers (`Signed-off-by: …`, `Fixes #12`), a revert's
# line, a merge's own subject, the pull request or issue a subject ends with, a `[skip ci]`.
_TRAILER = re.compile(r"^\s*(?:[A-Za-z][\w-]*-by:|Change-Id:|Bug:|Refs?:|See-also:|Issue:|(?:Fix(?:es|ed)?|Close[sd]?|"
                      r"Resolve[sd]?)\b:?\s*[\w./-]*#\d+|This reverts commit\b|\(cherry picked from\b)", re.IGNORECASE)
_MERGE = re.compile(r"^Merge (?:pull request|branch|remote-tracking branch|tag)\b", re.IGNORECASE)
_NOISE = re.compile(r"\s*(?:\((?:#\d+(?:,\s*)?)+\)|\[(?:skip ci|ci skip|no ci)\])\s*", re.IGNORECASE)
_WHY_WORDS = re.compile(r"\b(?:because|since|due to|so that|as it|caused|causes|slow(?:er)?|broken|breaks|"
                        r"unmaintained|deprecated|vulnerab\w*|cve-\d+|instead|incompatible|bloat\w*|heavy)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
REASON_CHARS = 160  # a drafted reason is read in a hover and a diagnostic: a line, not the message


# Subjects that say what happened to the repository, never why a package went: a release or a
# version, a merge, a dependency bot's bump, a word of housekeeping.
_NOT_A_WHY = re.compile(
    r"^(?:(?:release|version|bump version|prepare release)\b.*|v?\d+(?:\.\d+)+\S*|merge\b.*|"
    r"(?:bump|update)\s+\S+\s+from\s+\S+\s+to\s+\S+.*|\w+\((?:deps|deps-dev)\):.*|"
    r"(?:wip|update|updates|cleanup|clean up|misc|tidy|fix|fixes|changes|deps|dependencies)\W*)$",
    re.IGNORECASE)
_BULLET = re.compile(r"^(?:[-*•+]|\d+[.)])\s+")


def _chunks(lines: list[str]) -> list[str]:
    """A body's sentences: wrapped lines joined, each bullet of a pasted list on its own."""
    chunks: list[str] = []
    joined = True
    for line in lines:
        bullet = _BULLET.match(line)
        if bullet or not joined or not chunks:
            chunks.append(line[bullet.end():] if bullet else line)
        else:
            chunks[-1] += " " + line
        joined = not bullet
    return [s for chunk in chunks for s in _SENTENCE.split(chunk) if s]


def commit_why(message: str) -> str:
    """The part of a commit message that says why: its subject (a merge's: the merged pull
    request's title, the body's first line), and when the subject does not explain, the body's
    first sentence that does; no trailers, issue references or merge noise. A subject that only
    names a release, a merge or a bump is no reason: then the sentence that says why, or nothing
    (the person writes the reason)."""
    lines = [line.strip() for line in message.strip().splitlines()]
    lines = [line for line in lines if not _TRAILER.match(line)]
    if lines and _MERGE.match(lines[0]):
        lines = lines[1:]
    lines = [_NOISE.sub(" ", line).strip() for line in lines]
    lines = [line for line in lines if line]
    if not lines:
        return ""
    subject, body = _BULLET.sub("", lines[0]), _chunks(lines[1:])
    if _BULLET.match(lines[0]):  # a pasted list, not a subject
        body, subject = _chunks(lines), ""
    if _NOT_A_WHY.match(subject):
        subject = ""
    if subject and _WHY_WORDS.search(subject):
        return subject
    because = next((s for s in body if _WHY_WORDS.search(s)), None)
    if not subject:
        return because or ""
    return f"{subject.rstrip('.:')}: {because}" if because else subject


def shorten(text: str, limit: int = REASON_CHARS) -> str:
    """`text` within `limit` characters, cut at a word and marked."""
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"


def speaks_of(message: str, name: str) -> bool:
    """Whether `message` names `name`, as a whole word."""
    return re.search(rf"(?<![\w-]){re.escape(name.lower())}(?![\w-])", message.lower()) is not None


def instead_of(name: str) -> re.Pattern[str]:
    # Not a module of it: "use sphinx.ext.extlinks" is no use of the Sphinx package.
    return re.compile(rf"\b(?:with|to|in favou?r of|use|using|adopt|by|for)\s+`?{re.escape(name)}(?![\w-]|\.\w)",
                      re.IGNORECASE)
