"""No secret is ever stored: every text a write door takes is scanned before anything is written.

The detectors are Yelp's detect-secrets plugins (cloud keys, tokens, private key blocks, JWTs,
passwords in URLs and after secret-sounding keywords) plus an entropy check, on the plugin's own
Shannon entropy, of values assigned to a name (`API_TOKEN=…`, `"client_secret": "…"`), plus secrets
written in sentences: "the db password is hunter2", "the token for Sentry is …", "login is admin /
…", `curl -u user:pass`, `Bearer …`. A hit is
refused naming the field, the kind and the character range (`content: AWS Access Key at 11–31`,
0-based, end exclusive) and never the secret itself; a person may ask for the text to be stored
with each secret replaced by `[REDACTED:<kind>]`, an agent may not.

Memories about code are full of random-looking strings that are not secrets, so these pass:
hex digests and git SHAs (a bare hex value is flagged only after a secret-sounding name), UUIDs,
`sha512-…` integrity strings, base64 that decodes to text, sequential and templated values
(`${TOKEN}`, `<your-key>`, "replace-this-with-a-secure-key"), code (`detect_types=sqlite3.PARSE_DECLTYPES`,
`password = PasswordField(…)`, `form.password.data`), prose about a password ("the password is
stored in the vault": a value in a sentence must hold a digit or a symbol), and documented example keys: a value containing `EXAMPLE` (AWS's own
`AKIAIOSFODNN7EXAMPLE`, `wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`) is marked as an example by the
vendor that published it, and a real random key holds that word with negligible probability.

detect-secrets imports `requests` and takes ≈ 0.3 s to import, so it loads on the first scan, not
when the language server or `cenotaph mcp` starts."""

from __future__ import annotations

import base64
import binascii
import math
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from cenotaph.memory.errors import InvalidInput
from cenotaph.memory.models import Actor

# Plugins whose hits are not secrets in a memory (a public IP address is an address).
_SKIPPED_PLUGINS = frozenset({"IPPublicDetector"})
# What detect-secrets 1.5 misses, in its (kind, patterns) shape: GitHub's fine-grained tokens, and
# URL passwords holding a sub-delimiter (`!`, `$`, `&`…), which its own URL pattern leaves out.
# A scheme never starts just after a letter: wherever that start would match, the letter before it
# matched first, so the same URLs are found; without it, every letter of a long word is a start
# that reads on to the word's end (50,000 letters took 4 s).
_EXTRA_DETECTORS = [
    ("GitHub Token", [re.compile(r"github_pat_[A-Za-z0-9_]{60,}")]),
    ("Basic Auth Credentials", [re.compile(r"(?<![A-Za-z])[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@]+:([^\s@/]+)@"),
                                re.compile(r"(?:\s-u|--user)\s+[\"']?[^\s:\"'/]+:([^\s\"'@]{4,})")]),
    ("Google API Key", [re.compile(r"\bAIza[0-9A-Za-z_\-]{35}")]),
]
# A plugin's pattern may stop short of the token it found (Stripe's `{24}`, the JWT's lazy last
# part): the range runs on to the token's end.
_TOKEN_TAIL = re.compile(r"[A-Za-z0-9_\-+/=.]*")
_PRIVATE_KEY_BLOCK = re.compile(r"-----BEGIN[ A-Z0-9]*PRIVATE KEY( BLOCK)?-----.*?(-----END[ A-Z0-9]*PRIVATE KEY"
                                r"( BLOCK)?-----|\Z)", re.DOTALL)
# `name = value`, `name: value`, `"name": "value"`: found from the separator and a long value
# after it (few places in a text), then the name read back from just before the separator.
_ASSIGNED_VALUE = re.compile(r"""(?::=|=>|=|:)\s*(?P<quote>["'`]?)(?P<value>[A-Za-z0-9+/=_\-.~]{20,})(?P=quote)""")
_NAME_BEFORE = re.compile(r"""(?<![A-Za-z0-9_.-])(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,80})["']?\s*\Z""")
_SECRET_NAME = re.compile(r"(?i)(secret|token|passw|pwd|api.?key|auth|credential|private|access.?key|signing|"
                          r"session|cookie|bearer|key$)")
_ID_NAME = re.compile(r"(?i)(^|[_.-])(h\d|id|ids|sha\d*|hash|digest|checksum|integrity|commit|rev|revision|etag|uuid|"
                      r"guid|nonce_?hex|version|ref|oid|fingerprint|url|uri|path|file|name|image|module)$")
_HEX = re.compile(r"[0-9a-fA-F]+")
_INTEGRITY = re.compile(r"(?i)^(sha1|sha256|sha384|sha512|md5)[-_:]")
# An ellipsis (`…`, `...`) is a value left out on purpose: no generated secret holds one.
# Documentation's own stand-ins say what belongs there ("replace-this-with-a-secure-key").
_PLACEHOLDER = re.compile(r"(?i)(example|placeholder|dummy|changeme|change[_-]me|redacted|x{6,}|\*{4,}|your[_-]|"
                          r"<[^>]*>|^\$|\$\{|\{\{|%\(|…|\.{3}|replace|[_-]here$|insert[_-]|sample|fake)")
# Code, not a value: a call or subscript (`PasswordField(`), an attribute path (`form.password.data`,
# `sqlite3.PARSE_DECLTYPES`), words joined by `_` or `.` (each a word, at most a version's digits
# at its end). A generated token has its digits anywhere.
_CODE_VALUE = re.compile(r"[A-Za-z_][\w.]*[(\[]|[A-Za-z_]\w*(\.[A-Za-z_]\w*)+")
_WORDS_VALUE = re.compile(r"[A-Za-z]+\d{0,3}([._][A-Za-z]+\d{0,3})+")
_BASE64_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_="
# A value of n characters cannot exceed log2(n) bits per character: short random tokens are held
# to a share of that bound, long ones to detect-secrets' default base64 limit.
_BASE64_LIMIT = 4.5
_SHORT_SHARE = 0.87

GENERIC_KIND = "High Entropy Value"


@dataclass(frozen=True, slots=True)
class Finding:
    """A secret at text[start:end]; `kind` is the detector's name for it."""

    kind: str
    start: int
    end: int

    def describe(self) -> str:
        return f"{self.kind} at {self.start}–{self.end}"


class SecretFound(InvalidInput):
    """A text holds a secret; names the field, each secret's kind and range, never its value."""

    def __init__(self, field: str, findings: list[Finding], *, advice: str) -> None:
        self.findings = findings
        listed = "; ".join(f.describe() for f in findings)
        super().__init__(f"{listed} ({advice})", field=field)


# A case-insensitive alternation costs a pass per alternative over the whole text; plain substring
# tests on the lowered text are ≈ 50× cheaper and rule most texts out first. Every detect-secrets
# keyword (its DENYLIST) holds one of these; so does every prose pattern below.
_KEYWORD_HINTS = ("key", "pass", "pwd", "secret", "contras")
_PROSE_HINTS = ("pass", "pwd", "pw", "token", "secret", "key", "login", "cred", "bearer", "basic")

_lock = threading.Lock()
_detectors: list[tuple[str, list[Any]]] | None = None
_keyword_patterns: list[tuple[Any, int]] | None = None
_keyword_present: re.Pattern[str] | None = None  # the keyword patterns are costly: only lines naming one
_entropy: Any = None


def _load() -> None:
    """Import detect-secrets once: its regex plugins, its keyword patterns and its entropy."""
    global _detectors, _keyword_patterns, _keyword_present, _entropy
    with _lock:
        if _detectors is not None:
            return
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
        from detect_secrets.plugins.base import RegexBasedDetector
        from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString
        from detect_secrets.plugins.keyword import (
            CONFIG_DENYLIST_REGEX_TO_GROUP,
            DENYLIST,
            QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP,
        )

        detectors = []
        for plugin in get_mapping_from_secret_type_to_class().values():
            if issubclass(plugin, RegexBasedDetector) and plugin.__name__ not in _SKIPPED_PLUGINS:
                detectors.append((plugin.secret_type, list(plugin.denylist)))
        _keyword_patterns = [*CONFIG_DENYLIST_REGEX_TO_GROUP.items(), *QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP.items()]
        _keyword_present = re.compile("|".join(DENYLIST), re.IGNORECASE)
        _entropy = Base64HighEntropyString().calculate_shannon_entropy
        _detectors = sorted(detectors) + _EXTRA_DETECTORS


def preload() -> None:
    """Load the detectors now (a server calls it in the background, beside the model)."""
    _load()


def _secret_span(match: re.Match[str]) -> tuple[int, int]:
    """The secret inside a plugin's match: its longest captured group of 8 characters or more
    (the key after `aws_secret_access_key =`, the password in `://user:pass@`), else the match."""
    best = match.span()
    groups = [match.span(i) for i in range(1, (match.re.groups or 0) + 1) if match.span(i)[0] >= 0]
    long_groups = [g for g in groups if g[1] - g[0] >= 8]
    if long_groups:
        best = max(long_groups, key=lambda g: g[1] - g[0])
        return best
    tail = _TOKEN_TAIL.match(match.string, best[1]).group().rstrip(".")
    return best[0], best[1] + len(tail)


def _decodes_to_text(value: str) -> bool:
    """Base64 whose bytes are readable text (prose, JSON, a config) is data, not a key."""
    stripped = value.rstrip("=")
    if len(stripped) < 16:
        return False
    try:
        raw = base64.b64decode(stripped + "=" * (-len(stripped) % 4), altchars=b"-_" if "-" in value or "_" in value
                               else None, validate=True)
    except (binascii.Error, ValueError):
        return False
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    printable = sum(ch.isprintable() or ch in "\n\r\t" for ch in decoded)
    return printable >= 0.95 * len(decoded) and sum(ch.isalpha() or ch == " " for ch in decoded) >= 0.6 * len(decoded)


def _looks_random(value: str) -> bool:
    if any(ch not in _BASE64_CHARS and ch not in ".~" for ch in value):
        return False
    length = len(value)
    limit = _BASE64_LIMIT if length >= 32 else _SHORT_SHARE * math.log2(length)
    if _entropy(value) < limit:
        return False
    # Identifiers and prose-like runs (`createContradictionWarning_forAll`) have no digits in them.
    return any(ch.isdigit() for ch in value) and any(ch.isalpha() for ch in value)


def _credential_like(value: str) -> bool:
    """A value after `password:` that could be one: no spaces, six characters or more, and two
    kinds of character at least ("password: rotated monthly" is prose, not a password)."""
    if len(value) < 6 or any(ch.isspace() for ch in value):
        return False
    classes = (any(ch.islower() for ch in value), any(ch.isupper() for ch in value),
               any(ch.isdigit() for ch in value), any(not ch.isalnum() for ch in value))
    return sum(classes) >= 2


def _is_look_alike(value: str) -> bool:
    from detect_secrets.filters.heuristic import is_potential_uuid, is_sequential_string

    return bool(_PLACEHOLDER.search(value) or _INTEGRITY.match(value) or is_potential_uuid(value)
                or is_sequential_string(value) or _decodes_to_text(value))


def _token_findings(text: str) -> Iterator[Finding]:
    """The plugins' own patterns, over the whole text at once (none of them spans a line break
    that the text does not have)."""
    assert _detectors is not None
    for kind, patterns in _detectors:
        for pattern in patterns:
            for match in pattern.finditer(text):
                start, end = _secret_span(match)
                if not _is_look_alike(text[start:end]):
                    yield Finding(kind, start, end)


def _line_findings(line: str, offset: int) -> Iterator[Finding]:
    """Keyword and entropy checks, line by line as detect-secrets reads a file."""
    assert _keyword_patterns is not None and _keyword_present is not None
    if "=" not in line and ":" not in line and "(" not in line:
        return
    indirect = None
    lowered = line.lower()
    named = any(hint in lowered for hint in _KEYWORD_HINTS) and _keyword_present.search(line)
    for pattern, group in _keyword_patterns if named else ():
        for match in pattern.finditer(line):
            value = match.group(group)
            if not value or not _credential_like(value) or _is_look_alike(value) or _CODE_VALUE.fullmatch(value):
                continue
            if indirect is None:
                from detect_secrets.filters.heuristic import is_indirect_reference
                indirect = is_indirect_reference(line)  # `password = os.environ["DB_PASSWORD"]`
            if not indirect:
                start, end = match.span(group)
                yield Finding("Secret Keyword", offset + start, offset + end)
    for match in _ASSIGNED_VALUE.finditer(line):
        named = _NAME_BEFORE.search(line, max(0, match.start() - 90), match.start())
        if named is None:
            continue
        name, value = named.group("name"), match.group("value")
        if (_ID_NAME.search(name) or _is_look_alike(value) or _WORDS_VALUE.fullmatch(value)
                or value.startswith("//") or line[match.end():match.end() + 1] in ("(", "[")):
            continue  # a name, a look-alike, a URL after its scheme, or code (`Base64HighEntropyString().method`)
        if _HEX.fullmatch(value) and not _SECRET_NAME.search(name):
            continue  # a digest or a commit, not a key
        if _looks_random(value) or (_SECRET_NAME.search(name) and _HEX.fullmatch(value) and len(value) >= 20):
            yield Finding(GENERIC_KIND, offset + match.start("value"), offset + match.end("value"))


# Prose: a secret-sounding word, optionally what it is for, a verb or a separator, then the value
# ("the db password is hunter2", "the token for Sentry is …", "use password Winter2024!").
_PROSE_SECRET = re.compile(
    r"(?i)\b(?P<word>password|passwd|passphrase|pwd|pw|token|secret|api[ _-]?key)\b"
    r"(?:\s+(?:for|of|on|to)\s+[^\n.:=!?]{1,40}?(?:\s+(?:is|was|are|were|will be)\b|\s*[:=])"
    r"|\s+(?:is|was|are|were|will be)\b|\s*[:=]|\s+with\b|(?=\s))\s*[\"'`*_]*(?P<value>[^\s\"'`]+)")
# A pair: "staging login is admin / Tr0ub4dor…", "login: deploy / …", "SMTP creds are me@x.io / …".
_PROSE_LOGIN = re.compile(
    r"(?i)\b(?:login|logins|creds|credentials|user\s*/\s*pass(?:word)?|username\s*/\s*password)\b"
    r"(?:\s+(?:is|are|was|were)\b|\s*[:=])?\s*[\w.@+-]{1,64}(?:\s+/\s+|\s*:\s*|/)(?P<value>[^\s\"'`]+)")
_PROSE_BEARER = re.compile(r"(?i)\b(?:bearer|basic)\s+(?P<value>[A-Za-z0-9+/=_\-.~]{16,})")
_TRAILING = ".,;:)]}>'\"`*_~"
_CAPS_NAME = re.compile(r"[A-Z][A-Z0-9_]*_[A-Z0-9_]+")  # an environment variable's name, not its value


def _prose_value_is_secret(value: str, word: str) -> bool:
    """A value written in a sentence is a credential when it could not be an English word, a name
    in code or a path: six characters or more, a digit or a symbol in it, two kinds of character;
    or, after "passphrase"/"password", three words joined by hyphens."""
    if len(value) < 6 or _is_look_alike(value) or _CODE_VALUE.fullmatch(value) or _CAPS_NAME.fullmatch(value):
        return False
    if any(ch in value for ch in "/\\(){}[]<>$%") or "=" in value.rstrip("=") or value.startswith(("http", "@", "#", "-")):
        return False
    if re.fullmatch(r"[a-z]+(-[a-z]+){2,}", value):
        return word.lower().startswith("pass")
    symbols = any(not ch.isalnum() and ch not in "-_" for ch in value)
    if not (any(ch.isdigit() for ch in value) or symbols):
        return False
    return _credential_like(value) and not re.fullmatch(r"[\d.,:x-]+[a-z]{0,3}", value)  # 24h, 1.2.3, 30s


def _prose_findings(text: str) -> Iterator[Finding]:
    lowered = text.lower()
    if not any(hint in lowered for hint in _PROSE_HINTS):
        return
    for pattern, kind in ((_PROSE_SECRET, "Password"), (_PROSE_LOGIN, "Login Credentials"),
                          (_PROSE_BEARER, "Bearer Token")):
        for match in pattern.finditer(text):
            value = match.group("value").rstrip(_TRAILING)
            word = match.groupdict().get("word") or "password"
            if kind == "Bearer Token":
                if not (_looks_random(value) and not _is_look_alike(value)):
                    continue
            elif not _prose_value_is_secret(value, word):
                continue
            named = kind if kind != "Password" or word.lower().startswith(("pass", "pw")) else "Secret Keyword"
            start = match.start("value")
            yield Finding(named, start, start + len(value))


def scan(text: str) -> list[Finding]:
    """Every secret in `text`, in order; overlapping hits are merged under the first detector's kind."""
    _load()
    found: list[Finding] = []
    for block in _PRIVATE_KEY_BLOCK.finditer(text):
        found.append(Finding("Private Key", block.start(), block.end()))
    found.extend(_token_findings(text))
    found.extend(_prose_findings(text))
    offset = 0
    for line in text.splitlines(keepends=True):
        found.extend(_line_findings(line, offset))
        offset += len(line)
    found.sort(key=lambda f: (f.start, -(f.end - f.start)))
    merged: list[Finding] = []
    for finding in found:
        if merged and finding.start < merged[-1].end:
            last = merged[-1]
            merged[-1] = Finding(last.kind, last.start, max(last.end, finding.end))
        else:
            merged.append(finding)
    return merged


def may_hold_secret(text: str) -> bool:
    """False for a text of letters, spaces and sentence punctuation alone, which no detector here
    finds a secret in (each needs a digit or a symbol, short of a key id that happens to be all
    capitals); a read door that keeps its text (recall's log) need not load detect-secrets for it."""
    return any(ch.isdigit() or not (ch.isalpha() or ch.isspace() or ch in ".,;!?'\"()") for ch in text)


def redact(text: str, findings: list[Finding] | None = None) -> str:
    """`text` with each secret replaced by `[REDACTED:<kind>]`."""
    findings = scan(text) if findings is None else findings
    pieces, last = [], 0
    for finding in findings:
        pieces.append(text[last:finding.start])
        pieces.append(f"[REDACTED:{finding.kind}]")
        last = finding.end
    pieces.append(text[last:])
    return "".join(pieces)


def check(text: str, field: str, *, advice: str = "remove the secret and send the text again") -> None:
    """Raise SecretFound if `text` holds a secret."""
    findings = scan(text)
    if findings:
        raise SecretFound(field, findings, advice=advice)


def screen(text: str, field: str, actor: Actor) -> str:
    """What a write door stores: `text` unchanged when it holds no secret; with its secrets
    redacted when a person asked for that (`actor.redact_secrets`); otherwise refused. An agent
    never gets the redaction: it is told to remove the secret."""
    findings = scan(text)
    if not findings:
        return text
    if actor.kind == "human" and actor.redact_secrets:
        return redact(text, findings)
    advice = ("remove it, or store the text with it replaced by [REDACTED:<kind>] (--redact)" if actor.kind == "human"
              else "remove the secret and call again; secrets are never stored")
    raise SecretFound(field, findings, advice=advice)


def screen_list(values: list[str], field: str, actor: Actor) -> list[str]:
    return [screen(v, f"{field}[{i}]", actor) for i, v in enumerate(values)]


def screen_optional(value: str | None, field: str, actor: Actor) -> str | None:
    return None if value is None else screen(value, field, actor)
