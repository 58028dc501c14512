"""What a commit message says about a dropped name: whether it names it, says why, or names
what is used instead; and the short why a drafted reason quotes."""

from __future__ import annotations

import re

SIGNAL_WORDS = re.compile(
    r"\b(?:drop(?:s|ped|ping)?|remov(?:e|es|ed|ing)|replac(?:e|es|ed|ing)|revert(?:s|ed)?|broken|break(?:s|ing)?|"
    r"slow(?:er)?|deprecat(?:e|ed|ion)|vulnerab(?:le|ility)|cve-\d+|migrat(?:e|ed|ion)|switch(?:ed)?|"
    r"get rid|ditch(?:ed)?|abandon(?:ed)?|disabl(?:e|ed|ing)|instead|uninstall(?:s|ed|ing)?|(?:don'?t|do not|no longer|stop)\s+install(?:ing)?|(?:don'?t|do not|no longer)\s+need(?:ed|s)?)\b",
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


# A subject whose own act is a removal ("Remove old unused files", "npm: uninstall a bunch of
# packages", "🔥 Removed gulpfile"), after a conventional-commit type or an emoji.
_REMOVAL_SUBJECT = re.compile(
    r"^\W*(?:\w+(?:\([\w-]+\))?!?:\s*)?(?:remov(?:e|es|ed|ing)|drop(?:s|ped|ping)?|delet(?:e|es|ed|ing)|"
    r"uninstall(?:s|ed|ing)?|purg(?:e|es|ed|ing)|clean(?:s|ed|ing)?(?:\s*up)?|get rid of|got rid of)\b",
    re.IGNORECASE)


def _subject(message: str) -> str:
    """The message's first line."""
    return message.strip().splitlines()[0] if message.strip() else ""


def removal_subject(message: str) -> bool:
    """Whether the message's subject says, first, that the commit removes something: then what it
    dropped is what it set out to drop, however many names went."""
    subject = _subject(message)
    return _REMOVAL_SUBJECT.match(subject) is not None


# "Revert \"pull in the matcher\"", "revert last commit", "fix: revert back to flate": the subject
# undoes an earlier change, whether or not the commit it reverts is named.
_REVERT_SUBJECT = re.compile(r"^\W*(?:\w+(?:\([\w-]+\))?!?:\s*)?revert(?:s|ed|ing)?\b", re.IGNORECASE)


def revert_subject(message: str) -> bool:
    """Whether the message's subject says, first, that the commit reverts an earlier change."""
    return _REVERT_SUBJECT.match(_subject(message)) is not None


def subject_names_file(message: str, path: str | None) -> bool:
    """Whether the message's subject names the file at `path` ("Removed Dockerfile", "Remove
    benchmarks/Dockerfile", "Clean up docs/requirements.txt")."""
    subject = _subject(message).lower()
    return bool(path) and path.rpartition("/")[2].lower() in subject


def speaks_of(message: str, name: str) -> bool:
    """Whether `message` names `name`, as a whole word."""
    return re.search(rf"(?<![\w-]){re.escape(name.lower())}(?![\w-])", message.lower()) is not None


def names_part_of(message: str, name: str) -> bool:
    """Whether every mention of `name` in `message` is of a package inside it ("Replace
    golang.org/x/crypto/ssh/terminal with golang.org/x/term"): the choice was about that package, and
    the module's others may still be in use. A link's path (…/uniseg/pull/47) is no package."""
    pattern = re.compile(rf"(?<![\w-]){re.escape(name.lower())}(?![\w-])")
    parts = [(token, found) for token in message.lower().split() for found in pattern.finditer(token)]
    return bool(parts) and all("://" not in token and re.match(r"/\w", token[found.end():]) for token, found in parts)


# A package that ships a product's executable, command line or core under the product's name
# (`flow-bin`, `poetry-core`, `@crowdin/cli`): a message naming the product names it.
_SHIPPED = re.compile(r"^(?:@([\w.-]+)/(?:cli|core|bin)|([\w.]+(?:-[\w.]+)*?)-(?:bin|cli|core))$", re.IGNORECASE)


def product_of(name: str) -> str | None:
    """The product whose executable, command line or core the package ships, by its name."""
    found = _SHIPPED.match(name)
    return None if found is None else found[1] or found[2]


def names_package(message: str, name: str, *, scope: bool = True) -> bool:
    """Whether `message` names the package: its name (not only a package inside it), the product
    it ships ("Drop built-in Flow type definition" for `flow-bin`) or (`scope`) the product whose
    scope it is published under ("disable crowdin completely" for `@crowdin/crowdin-api-client`).
    A scope may be a plain word ("Remove obsolete actions" for `@actions/exec`): enough to rank a
    candidate, not to keep one that went with its project."""
    product = product_of(name) or (name[1:].split("/", 1)[0] if scope and name.startswith("@") and "/" in name else None)
    return (speaks_of(message, name) and not names_part_of(message, name)) or \
        (product is not None and speaks_of(message, product)) or _affixed(name).search(message) is not None or \
        ((short := module_word(name)) is not None and not names_part_of(message, name) and
         re.search(rf"(?<![\w./-]){re.escape(short.lower())}(?![\w/-])", message.lower()) is not None)


def module_word(name: str) -> str | None:
    """The word a Go module path is spoken of by, its last element without a major version
    ("we do not use spinner anymore" for `github.com/schollz/spinner`; `cli` for
    `github.com/urfave/cli/v2`, `yaml` for `gopkg.in/yaml.v3`), or None for a name that is no such path.
    The word alone, not inside a path (`golang.org/x/crypto/ssh` is no mention of `crypto` by that word)."""
    parts = name.split("/")
    if len(parts) < 2 or "." not in parts[0] or name.startswith("@"):
        return None
    if re.fullmatch(r"v\d+", parts[-1]) and len(parts) > 2:
        parts = parts[:-1]
    return re.sub(r"\.v\d+$", "", parts[-1]) or None


def _affixed(name: str) -> re.Pattern[str]:
    """The package named as its project is, by its language ("Switch from rust-websocket to ws-rs"
    names the crate `websocket`; `node-X`, `X.js`, `py-X`, `X-go` likewise)."""
    escaped = re.escape(name)
    return re.compile(rf"(?<![\w.-])(?:(?:rust|node|py|python|go)-{escaped}|{escaped}(?:-(?:rs|js|py|go)|\.(?:rs|js|py)))"
                      r"(?![\w-])", re.IGNORECASE)


def instead_of(name: str) -> re.Pattern[str]:
    # Not a module of it: "use sphinx.ext.extlinks" is no use of the Sphinx package.
    return re.compile(rf"\b(?:with|to|in favou?r of|use|using|adopt|by|for)\s+`?{re.escape(name)}(?![\w-]|\.\w)",
                      re.IGNORECASE)


# A commit that says what it dropped was not needed: a judgement on the dependency itself.
_UNUSED = re.compile(r"\b(?:unused|unnecessary|unneeded|not needed|no longer (?:needed|used|required)|"
                     r"non[- ]?essential|superfluous|redundant)\b", re.IGNORECASE)
_DEPENDENCY = re.compile(r"\b(?:deps?|dependenc(?:y|ies)|requirements?|packages?|librar(?:y|ies)|crates?|modules?)\b",
                         re.IGNORECASE)
# "Fix: use ansi_term instead", "This package is deprecated and unmaintained": why a successor was chosen.
_MAINTENANCE = re.compile(r"\b(?:unmaintained|no longer maintained|not maintained|deprecated|abandoned|archived|"
                          r"vulnerab\w*|cve-\d+|security)\b", re.IGNORECASE)


def says_unused(message: str, name: str) -> str | None:
    """The word with which the message says the dropped name (or the dependencies it dropped) was
    not needed, if it does."""
    found = _UNUSED.search(message)
    if found and (speaks_of(message, name) or _DEPENDENCY.search(message)):
        return found[0].lower()
    return None


def _parts(text: str) -> list[str]:
    return [p for p in re.split(r"[-_./]+", text.lower()) if p]


def versioned(name: str, successor: str) -> bool:
    """Whether `successor` is `name` at another version, the version being part of the name
    (`python-pip` → `python3-pip`, `python2.7` → `python3`, `libssl1.0` → `libssl3`), or moved under
    a scope with the same words (`rollup-plugin-terser` → `@rollup/plugin-terser`,
    `@tsconfig/docusaurus` → `@docusaurus/tsconfig`): the two differ only in their digits or in the
    order of their words (`renamed` decides whether the subject chose it all the same)."""
    def letters(text: str) -> list[str]:
        return [p for p in (re.sub(r"\d+", "", part) for part in _parts(text)) if p]
    old = letters(name)
    if name.lower() == successor.lower() or sum(map(len, old)) < 3:
        return False
    return old == letters(successor) or sorted(_parts(name.lstrip("@"))) == sorted(_parts(successor.lstrip("@")))


def renamed(name: str, successor: str, message: str) -> bool:
    """Whether `successor` is `name` published again under a new name (`dirs` → `dirs-next`,
    `jemallocator` → `tikv-jemallocator`), or folded back into the package it was a variant of
    (`cross-spawn-async` → `cross-spawn`, the image `archlinux/base` → `archlinux`), or published
    without its owner's scope (`@wessberg/rollup-plugin-ts` → `rollup-plugin-ts`): one name holds
    the other whole (the old one but for one last part), and the commit's subject chooses nothing
    (no "replace", "switch", "instead") nor says what was wrong with the old one (unmaintained,
    deprecated, a vulnerability); or it is the same name at another version (`versioned`) and the
    subject does not say it uses the successor by name ("use `http-proxy-3`": a fork chosen)."""
    subject = _subject(message)
    # "Use CommonJS-compatible export in TypeScript definition" uses something else: no choice of it.
    chooses = _CHOOSES.search(subject) is not None and speaks_of(subject, successor)
    if versioned(name, successor):
        return not chooses
    # The owner's scope dropped, the same words: `@wessberg/rollup-plugin-ts` → `rollup-plugin-ts`.
    unscoped = name.startswith("@") and not successor.startswith("@") and name.partition("/")[2].lower() == successor.lower()
    if successor.startswith("@") and not name.startswith("@"):
        return False  # a scope is an owner of its own: `@clack/prompts` is not `prompts` again
    old, new = _parts(name), _parts(successor)
    if not unscoped and (not old or not new or old == new):
        return False
    folded_back = len(old) == len(new) + 1 and old[:len(new)] == new
    if not unscoped and not folded_back and (len(new) <= len(old) or
                            not any(new[i:i + len(old)] == old for i in range(len(new) - len(old) + 1))):
        return False
    return not SIGNAL_WORDS.search(subject) and not _WHY_WORDS.search(subject) and not chooses \
        and not _MAINTENANCE.search(message)


# "use `http-proxy-3`", "adopt …": the subject says the commit chose the successor (when it names it).
_CHOOSES = re.compile(r"\b(?:use[sd]?|using|adopt(?:s|ed)?)\b", re.IGNORECASE)


# "Vendorize ansimarkup", "vendor the parser": its code now lives in the repository.
_VENDORED = re.compile(r"\b(?:vendor(?:s|ed|ing|ize[sd]?|ise[sd]?)?|inlin(?:e|ed|ing)\s+(?:a\s+)?(?:copy|the code))\b",
                       re.IGNORECASE)


def says_vendored(message: str, name: str) -> bool:
    """Whether the line of the message that names the package says its code was copied in."""
    return any(speaks_of(line, name) and _VENDORED.search(line) for line in message.splitlines())
