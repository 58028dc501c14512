"""The evidence a mined candidate rests on, each fact with the weight it carries, and the
confidence computed from them: a proposal says why it is believed (`Candidate.grounds`), and the
default list (confidence >= 0.5) holds the candidates whose evidence adds up.

Also read here, as evidence: the repository's changelogs at HEAD (a line that says a dependency
was dropped or replaced), and what the removed line's own comment or the removing commit says of a
pin kept for a while ("remove once greenlet releases 2.0", "already required by sqlalchemy")."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from cenotaph.nlp.names import fold

# The weight of each kind of evidence, in log-odds, and the log-odds with none: fitted by a
# regularized logistic regression on the blind judged corpus (bench/mining_blind_fit.py prints them
# and the cross-validated figures), so that a confidence is the share of such candidates that were
# decisions. Each feature is one ground a candidate can rest on (`Ground.feature`).
INTERCEPT = -0.08
WEIGHTS: dict[str, float] = {
    "revert": 0.99,  # its removal reverts its addition
    "experiment": -1.22,  # an addition reverted within days
    "named": 0.88,  # the removing commit names it
    "signal": 0.54,  # ... says drop, replace, deprecated, slow ...
    "unused": 0.44,  # ... says it was unused or unnecessary
    "same_package": -1.6,  # the same package under a new name, taken without a word
    "replaced_message": 1.28,  # a replacement the message names, added or declared
    "replaced_usage": 1.22,  # the tool the commit runs where it ran this one
    "replaced_commit": 0.58,  # the one name of its role the commit added
    "replaced_shared": 1.18,  # a replacement the message names, credited to other names it dropped, not this
    "plugin": -0.08,  # a tool's plugin or preset, unnamed, no use of it taken out
    "use_dropped": 0.26,  # the removing commit took its use out of the code, scripts or configuration
    "changelog": 0.79,  # a changelog line at HEAD says it was dropped or replaced
    "pin": -1.6,  # a pin kept for a while or for another package's sake
    "system": -1.34,  # an apt/apk package or a base image
    "system_chosen": -0.4,  # ... that the message names, or whose successor it names
    "runtime": 0.27,  # a runtime dependency
    "same_day": -0.8,  # added and removed the same day
    "short_silent": -0.42,  # declared under 30 days, dropped without a word
    "short": 0.14,  # declared under 30 days
    "long": 0.08,  # declared 30 days or more
    "churn": -0.74,  # one of many names the commit dropped, not named
    "build": -0.72,  # only ever in [build-system] requires
    "subproject": -0.89,  # its manifest deleted whole
    "moved_out": -1.4,  # its own folder deleted: it moved to another repository
    "dev": -0.21,  # a development tool
    "backport": -0.49,  # a backport of a newer standard library
    "compat": -0.81,  # dropped unnamed, without successor, by a floor rise
    "direct_only": -1.2,  # only the direct dependency went
    "vendored": -1.21,  # its code vendored
    "floor": -1.26,  # a backport retired when the floor rose
    "rewrite": -1.24,  # dropped by a rewrite of its project
    "with_code": 0.03,  # every file that used it deleted by the same commit
    "locked": -1.22,  # dropped without a word, a lock file at HEAD still resolves it
}
FLOOR, CEILING = 0.05, 0.95


@dataclass(frozen=True, slots=True)
class Ground:
    """One fact behind (weight > 0) or against (weight < 0) a candidate: its kind (`feature`, a
    key of `WEIGHTS`) and what it says of this candidate."""

    feature: str
    fact: str

    @property
    def weight(self) -> float:
        return WEIGHTS[self.feature]

    def __str__(self) -> str:
        return f"{self.fact} ({self.weight:+.2f})"


def confidence(grounds: Iterable[Ground]) -> float:
    """The logistic of the evidence's summed weights: the share of candidates with that evidence
    that the judged corpus calls decisions (within FLOOR–CEILING: never certain either way)."""
    logit = INTERCEPT + sum(ground.weight for ground in grounds)
    return round(min(CEILING, max(FLOOR, 1 / (1 + math.exp(-logit)))), 3)


# ---------------------------------------------------------------------------------------------
# Changelogs

# CHANGELOG.md, CHANGES.rst, HISTORY, NEWS, RELEASE_NOTES.md, docs/changelog.rst, whatsnew…
_CHANGELOG_FILE = re.compile(r"^(?:changelog|changes|history|news|release[-_ ]?notes|releases|whatsnew)(?:\.[a-z]+)?$",
                             re.IGNORECASE)
CHANGELOG_BYTES = 4_000_000  # what is read in all: the newest files' entries are at their top
# A line that drops a dependency: a removal word, and either a dependency word or the name as code.
_DROPS = re.compile(r"\b(?:drop(?:s|ped)?|remov(?:e|es|ed)|replac(?:e|es|ed)|no longer (?:depends?|requires?|uses?|needs?)|"
                    r"switch(?:ed|es)? (?:from|to)|migrat(?:e|ed|es) (?:from|to|away)|in favou?r of|instead of|"
                    r"get rid of|got rid of)\b", re.IGNORECASE)
_DEPENDENCY_WORDS = re.compile(r"\b(?:dep(?:s|endency|endencies)?|requirements?|package|library|libraries|crate|"
                               r"module)\b", re.IGNORECASE)
_CODE_SPAN = re.compile(r"`+([^`\s]+)`+|\*\*([^*\s]+)\*\*")
_TOKEN = re.compile(r"[@\w][\w@./-]*")


def is_changelog(path: str) -> bool:
    return _CHANGELOG_FILE.match(path.rsplit("/", 1)[-1]) is not None


def changelog_paths(files: Mapping[str, str]) -> list[str]:
    """The changelogs among `files` (path -> size or blob), shallowest first."""
    return sorted((path for path in files if is_changelog(path)), key=lambda p: (p.count("/"), p))


class Changelogs:
    """The folded names that a changelog line says were dropped or replaced, each with that line."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.drops: dict[str, str] = {}
        for text in texts:
            for line in text.splitlines():
                if not _DROPS.search(line):
                    continue
                as_code = {fold(a or b) for a, b in _CODE_SPAN.findall(line)}
                names = as_code | ({fold(token.rstrip(".")) for token in _TOKEN.findall(line)}
                                   if _DEPENDENCY_WORDS.search(line) else set())
                for name in names:
                    self.drops.setdefault(name, line.strip()[:200])

    def entry(self, name: str) -> str | None:
        return self.drops.get(fold(name))


# ---------------------------------------------------------------------------------------------
# Pins

# What a pin's own comment says: it is there for a while, or for another package's sake.
_PIN_COMMENT = re.compile(
    r"\b(?:remove|drop|delete|unpin)\b[^.\n]*\b(?:once|when|after|until)\b|\buntil\b[^.\n]*\b(?:releases?d?|fix(?:ed|es)?|"
    r"supports?|merged|available|lands?)\b|\balready (?:required|pulled in|installed|included|depended on) (?:by|with|via)\b|"
    r"\btransitive(?:ly)?\b|\btemporar(?:y|ily)\b|\bworkaround\b|"
    r"\bpinn?(?:ed|ing)?\s+(?:for|because|until|due|to avoid|as)\b",
    re.IGNORECASE)
# What a removing commit says of a pin: it lifts one, or the name comes with another package.
_PIN_MESSAGE = re.compile(
    r"\bunpin\w*|\b(?:remove|drop|lift)\w*\s+(?:the\s+|a\s+)?(?:\S+\s+)?pins?\b|\bpins?\s+(?:on|of|for)\b|"
    r"\balready (?:required|pulled in|installed|included|depended on) (?:by|with|via)\b|\btransitive(?:ly)?\b|"
    r"\bremove once\b|\b(?:don'?t|do not|no longer|stop)\s+pin", re.IGNORECASE)
_COMMENT = re.compile(r"(?:^|\s)(?:#|//)\s*(.*)$")


def pin_note(name: str, old_text: str, message: str) -> str | None:
    """What says the name was a pin kept for a while or for another package's sake, or None: the
    comment on its line or just above it in the manifest that lost it, or the removing commit."""
    lines = old_text.splitlines()
    pattern = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])", re.IGNORECASE)
    for i, line in enumerate(lines):
        if not pattern.search(line):
            continue
        for nearby in (line, lines[i - 1] if i else ""):
            comment = _COMMENT.search(nearby)
            if comment and _PIN_COMMENT.search(comment[1]):
                return f"its manifest's comment: \"{comment[1].strip()[:120]}\""
    if (said := _PIN_MESSAGE.search(message)) is not None:
        return f"the removing commit speaks of a pin (\"{said[0]}\")"
    return None


# "Bump sqlalchemy from 1.4 to 2.0" (dependabot, renovate): the commit is about another package.
BUMP = re.compile(r"^(?:\w+(?:\([\w-]+\))?:\s*)?(?:bump|update|upgrade)\s+(?:the\s+\S+\s+group\s+)?`?([\w@./-]+)`?\s+"
                  r"(?:from|to|requirement)\b", re.IGNORECASE)

# "Update dependencies", "chore(deps): update all non-major dependencies", "bump dev deps": a commit
# that brings the dependencies up to date chooses none of them.
DEPENDENCY_UPDATE = re.compile(r"^\W*(?:\w+(?:\([\w-]+\))?!?:\s*)?(?:updat(?:e[sd]?|ing)|upgrad(?:e[sd]?|ing)|bump(?:s|ed|ing)?)\s+"
                               r"(?:[\w-]+\s+){0,2}?(?:deps|dependencies|modules|packages|libs|libraries|requirements)\b",
                               re.IGNORECASE)

# "Drop support for Python 3.8", "Drop support for deprecated Python versions (2.7 and 3.5)", "drop
# python < 3.6", "require python >= 3.9", "Make Python 3.10 the minimum supported version", "require
# Node.js 4", "Drop support for Node.js 0.10 and 0.12": the floor of the platform the code runs on rose.
_PLATFORM = r"(python|py|node(?:\.?js)?)"
FLOOR_RISE = re.compile(rf"\b(?:drop|remov|end|retir|deprecat)\w*\s+(?:support\s+(?:for\s+)?)?"
                        rf"(?:(?:deprecated|old(?:er)?|legacy|eol|unsupported)\s+)?{_PLATFORM}\s*(?:versions?\s*)?"
                        r"(?:\(\s*)?(?:[<>]=?\s*)?v?(\d+(?:\.\d+)?)\b|"
                        rf"\b(?:require|min(?:imum)?|bump)\w*\s+{_PLATFORM}\s*(?:>=?\s*|to\s+)?v?(\d+(?:\.\d+)?)\b|"
                        rf"\b{_PLATFORM}\s*v?(\d+(?:\.\d+)?)\s+(?:is\s+)?(?:now\s+)?(?:the\s+)?(?:new\s+)?minimum\b",
                        re.IGNORECASE)
# The ecosystems whose packages run on each platform.
_PLATFORM_ECOSYSTEMS = {"python": ("pypi", "conda"), "node": ("npm",)}


def floor_rise(message: str, ecosystem: str) -> str | None:
    """The version of the platform `ecosystem`'s packages run on whose support the message ends,
    or the floor it sets, as written ("Python 3.8", "Node.js 4"); None when it raises none."""
    for found in FLOOR_RISE.finditer(message):
        platform, version = next((found[i], found[i + 1]) for i in (1, 3, 5) if found[i])
        is_node = platform.lower().startswith("node")
        # "drop py37", as tox and CI name the versions: 3.7 (the digits joined to the name).
        if not is_node and re.fullmatch(r"[23]\d{1,2}", version) and f"{platform}{version}".lower() in found[0].lower():
            version = f"{version[0]}.{version[1:]}"
        # Python's versions are 2.x and 3.x; "py 36" or "python 9" is no version of it.
        if ecosystem in _PLATFORM_ECOSYSTEMS["node" if is_node else "python"] and \
                (is_node or re.fullmatch(r"[23](?:\.\d+)?", version)):
            return f"{'Node.js' if is_node else 'Python'} {version}"
    return None


# A requirement only for older Pythons (`futures; python_version == '2.7'`, `python_version < "3.8"`):
# a shim for what a newer standard library has.
_OLD_PYTHON_MARKER = re.compile(r"python_(?:full_)?version\s*(?:==|<=?|~=)\s*['\"]?[23](?:\.\d+)*['\"]?", re.IGNORECASE)
# What a message's line says of a compatibility shim it drops ("all transitional requirements").
_SHIM_WORDS = re.compile(r"\b(?:transitional|compat(?:ibility)?|backports?|shims?|polyfills?)\b", re.IGNORECASE)


def shim_evidence(name: str, old_text: str, message: str) -> str | None:
    """What says the name was a compatibility shim for older Pythons, or None: its requirement's
    marker in the manifest that lost it, or the message's line that names it."""
    pattern = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])", re.IGNORECASE)
    for line in old_text.splitlines():
        if pattern.search(line) and (marker := _OLD_PYTHON_MARKER.search(line)):
            return f"required only for older Pythons ({marker[0]})"
    for line in message.splitlines():
        if pattern.search(line) and (word := _SHIM_WORDS.search(line)):
            return f"the message calls it {word[0].lower()}"
    return None
