"""Mining agent transcripts (Claude Code, Codex) for graveyard candidates: an install a person
rejected (their words are the reason), an install undone later in the same session, and a person's
own "don't use X" / "stop using X" / "remove X" naming a package.

Transcript files can be gigabytes. They are read in binary, line by line through a bounded buffer
(a longer line is skipped and counted), and only lines that can matter are parsed: a cheap byte
test comes first, which is what keeps this near disk speed. Each file has a cursor (where its last
complete line ended, and a fingerprint of the bytes before it), so a rerun reads only new lines;
a file whose fingerprint no longer matches was rewritten and is read again from the start."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any, BinaryIO

from cenotaph.memory import validate
from cenotaph.memory.context import Context
from cenotaph.memory.graveyard.approaches import Graveyard
from cenotaph.memory.mining import candidates
from cenotaph.memory.mining.candidates import Candidate, Evidence, ProposeReport
from cenotaph.memory.models import Actor
from cenotaph.nlp import ecosystems, names
from cenotaph.nlp.detect import detect, package_commands
from cenotaph.store import mining

CLAUDE = "claude"
CODEX = "codex"
_TOOL_NAMES = {CLAUDE: "Claude Code", CODEX: "Codex"}

CHUNK = 1 << 20
MAX_LINE = 16 << 20  # a record longer than this (a huge tool output) cannot name anything we mine
# The fingerprint hashes the file's first HEAD bytes and the WINDOW bytes before the cursor, not
# the whole prefix: hashing gigabytes again would make every rerun read the whole file. These
# files are only ever appended to; a rewrite (a new session under the same name, a truncation, a
# compaction) changes the head or the bytes just before the cursor, or makes the file shorter.
HEAD = 4096
WINDOW = 1 << 16
# Bounds on what a cursor carries from one run to the next (calls awaiting their result, installs
# a later removal may undo).
MAX_CARRIED = 500

CLAUDE_REJECTION = "The user doesn't want to proceed with this tool use"
# Where the person's words follow in a rejection: Claude Code before 2.1, and 2.1 on.
CLAUDE_WORDS = ("the user said:", "The user provided the following reason for the rejection:")
CODEX_REJECTIONS = ("exec command rejected by user", "patch rejected by user")

# Byte tests before parsing. A tool call matters only when its command names a package manager
# (ecosystems.command_hint); a tool result only when it answers a call we wait for; a person's
# message only when it says one of the phrases below.
_PHRASE = re.compile(rb"(?i:don(?:'|\xe2\x80\x99|\\u2019)?t|do not|never|stop|remove|rid of|uninstall|drop)")
_HARNESS_TEXT = ("<command-", "<local-command-", "<system-reminder>", "<user-prompt-submit-hook>",
                 "[Request interrupted", "Caveat: ", "<environment_context>", "<user_instructions>")

# --- a person's words --------------------------------------------------------------------------

_NAME = r"`[^`\s]{1,100}`|[@A-Za-z0-9][\w.@/+-]{0,100}"
_AGAINST = re.compile(
    rf"\b(?P<verb>(?:do(?:n't| not)|never|stop|quit|please don't)\s+(?:use|using|add|adding|install|installing|"
    rf"pull(?:ing)? in)|stop using|get rid of|remove|uninstall|drop|ditch|rip out)\s+(?:the\s+)?(?P<name>{_NAME})",
    re.IGNORECASE)
_STRONG_VERBS = ("don't", "do not", "never", "stop", "quit", "please", "get rid of", "ditch", "rip out")
_INSTEAD = re.compile(
    rf"\b(?:we(?:'re| are)?\s+(?:already\s+)?(?:use|using)|use|switch(?:ing)? to|go with|in favou?r of|"
    rf"replace\s+(?:it|them)\s+with)\s+(?P<name>{_NAME})",
    re.IGNORECASE)
_NAME_SHAPED = re.compile(r"^(?:@[\w.-]+/)?[A-Za-z0-9][\w.+-]*$|^[\w-]+(?:\.[\w-]+)+/[\w./-]+$")
_FILE_SUFFIXES = (".py", ".js", ".ts", ".tsx", ".jsx", ".mjs", ".cjs", ".md", ".json", ".toml", ".txt", ".lock",
                  ".yml", ".yaml", ".cfg", ".ini", ".sh", ".rs", ".go", ".mod", ".sum", ".html", ".css", ".csv",
                  ".env", ".sql", ".log", ".lua", ".c", ".h", ".cpp", ".java", ".rb")
_TRAILING = ".,;:!?)]}'\""


@dataclass(frozen=True, slots=True)
class Named:
    name: str
    ecosystem: str


class Vocabulary:
    """The names a person's message may mean: the project's manifests and the packages the session
    installed or tried to (the graveyard's names need not be known: they are judged already). A bare word counts only when it is one of them; a backticked
    one when it has a package's shape; so that "remove the file" names nothing."""

    def __init__(self, known: dict[str, str], fallback: str) -> None:
        self.known = known  # folded name → ecosystem
        self.fallback = fallback  # the ecosystem of a backticked name nothing else knows

    def find(self, written: str, session: dict[str, str]) -> Named | None:
        backticked = written.startswith("`")
        name = written.strip("`").rstrip(_TRAILING) if backticked else written.rstrip(_TRAILING)
        if not _NAME_SHAPED.match(name) or name.lower().endswith(_FILE_SUFFIXES) or name.isdigit():
            return None
        key = names.fold(name)
        ecosystem = session.get(key) or self.known.get(key)
        if ecosystem is None:
            if not backticked:
                return None
            ecosystem = "npm" if name.startswith("@") else "go" if "/" in name else self.fallback
        return Named(name, ecosystem)


@dataclass(frozen=True, slots=True)
class Said:
    against: Named
    strong: bool  # "don't use", "stop using"; else "remove", "drop", which may mean code
    replacement: Named | None


def read_said(text: str, vocabulary: Vocabulary, session: dict[str, str]) -> Said | None:
    """The package a person's message turns against, and what they want instead, if it names one."""
    text = text.replace("\u2019", "'")
    for match in _AGAINST.finditer(text):
        against = vocabulary.find(match["name"], session)
        if against is None:
            continue
        replacement = replacement_in(text[match.end():], vocabulary, session, against)
        return Said(against, match["verb"].lower().startswith(_STRONG_VERBS), replacement)
    return None


def replacement_in(text: str, vocabulary: Vocabulary, session: dict[str, str], against: Named) -> Named | None:
    for match in _INSTEAD.finditer(text.replace("\u2019", "'")):
        found = vocabulary.find(match["name"], session)
        if found is not None and names.fold(found.name) != names.fold(against.name):
            return found
    return None


def manifest_vocabulary(repo_root: Path) -> dict[str, str]:
    """Folded names declared in the repository's manifests (the root and one level down)."""
    known: dict[str, str] = {}
    folders = [repo_root, *sorted(p for p in _children(repo_root) if p.is_dir() and not p.name.startswith("."))]
    for folder in folders[:200]:
        for path in _children(folder):
            if path.is_file() and ecosystems.document_kind(path.name) in ecosystems.root_manifest_kinds():
                try:
                    text = path.read_text(encoding="utf-8", errors="replace")
                except OSError:
                    continue
                for mention in detect(path.name, text):
                    known.setdefault(names.fold(mention.name), mention.ecosystem)
    return known


def _children(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError:
        return []


# --- the report ------------------------------------------------------------------------------


@dataclass(slots=True)
class TranscriptReport:
    files: int = 0  # transcript files looked at
    files_read: int = 0  # of which had new bytes
    files_reread: int = 0  # rewritten since the last run: read again from the start
    bytes: int = 0  # read this run
    lines: int = 0  # complete lines read
    corrupt_lines: int = 0  # not a JSON object: skipped
    long_lines: int = 0  # longer than MAX_LINE: skipped
    sessions: int = 0  # sessions of this project with new lines (a file is one session)
    missing: list[str] = field(default_factory=list)  # transcript folders that do not exist
    candidates: list[Candidate] = field(default_factory=list)
    proposals: ProposeReport = field(default_factory=ProposeReport)


# --- reading ---------------------------------------------------------------------------------


class _Lines:
    """Complete lines from `offset` on, through a bounded buffer; `offset` follows the last one."""

    def __init__(self, handle: BinaryIO, offset: int, report: TranscriptReport) -> None:
        self.handle = handle
        self.offset = offset
        self.report = report

    def __iter__(self) -> Iterator[bytes]:
        report = self.report
        buffer = b""
        skipped = 0  # bytes of an over-long line dropped so far, its end not yet read
        while chunk := self.handle.read(CHUNK):
            report.bytes += len(chunk)
            pieces = (buffer + chunk if buffer else chunk).split(b"\n")
            buffer = pieces.pop()
            for piece in pieces:
                length = skipped + len(piece)
                self.offset += length + 1
                if skipped or length > MAX_LINE:
                    skipped = 0
                    report.long_lines += 1
                    continue
                report.lines += 1
                yield piece
            if skipped or len(buffer) > MAX_LINE:
                skipped += len(buffer)
                buffer = b""
        if buffer and not skipped and _complete(buffer):
            # The session ended on a record without its final newline: read it, once (the cursor
            # moves past it; a newline appended later starts an empty line).
            self.offset += len(buffer)
            report.lines += 1
            yield buffer


def fingerprint(handle: BinaryIO, offset: int) -> str:
    digest = hashlib.sha256()
    handle.seek(0)
    digest.update(handle.read(min(HEAD, offset)))
    start = max(min(HEAD, offset), offset - WINDOW)
    handle.seek(start)
    digest.update(handle.read(offset - start))
    return digest.hexdigest()


_USER_ROLE = re.compile(rb'"role"\s*:\s*"user"')
_CWD = re.compile(rb'"cwd"\s*:\s*"((?:[^"\\]|\\.){1,4000})"')
_TOOL_USE_ID = re.compile(rb'"tool_use_id"\s*:\s*"([^"\\]{1,200})"')
_CALL_ID = re.compile(rb'"call_id"\s*:\s*"([^"\\]{1,200})"')


def _answers(pattern: re.Pattern[bytes], line: bytes, state: _State) -> bool:
    """Whether a result line answers one of the calls waiting (found by id, not by scanning for each)."""
    return any(m[1].decode("utf-8", "replace") in state.calls for m in pattern.finditer(line))


def _await(state: _State, call_id: str, call: _Call) -> None:
    state.calls[call_id] = call
    state.named(call)
    if len(state.calls) > MAX_CARRIED:  # calls whose result never came (an interrupted session)
        del state.calls[next(iter(state.calls))]


def _well_formed(line: bytes) -> bool:
    return line.startswith(b"{") and line.endswith((b"}", b"}\r"))


def _complete(line: bytes) -> bool:
    """A whole JSON record (not the first part of one still being written)."""
    if not _well_formed(line):
        return False
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


# --- what a session leaves behind ----------------------------------------------------------------


@dataclass(slots=True)
class _Call:
    removes: bool
    ecosystem: str
    names: list[str]
    command: str
    at: str
    ref: str


@dataclass(slots=True)
class _State:
    """What a file's cursor carries to the next run."""

    offset: int = 0
    hash: str = ""
    cwd: str | None = None  # Codex: the session's current folder (its first line's, then each turn's)
    session: str | None = None
    calls: dict[str, _Call] = field(default_factory=dict)  # install or removal calls awaiting their result
    installed: list[list[str]] = field(default_factory=list)  # [ecosystem, folded name, at, ref, command]
    names: dict[str, str] = field(default_factory=dict)  # folded name → ecosystem of every package the session named
    # Codex: rejected calls whose reason may be the person's next message (not carried over: what
    # is still waiting at the end of a run is rejected without words).
    awaiting: list[_Call] = field(default_factory=list)
    # Codex: the person's last message, which newer rollouts write twice (a `response_item` and an
    # `event_msg`) and older ones only as a `response_item`.
    last_said: str = ""

    def dump(self) -> str:
        calls = dict(list(self.calls.items())[-MAX_CARRIED:])
        return json.dumps({
            "offset": self.offset, "hash": self.hash, "cwd": self.cwd, "session": self.session,
            "calls": {k: [c.removes, c.ecosystem, c.names, c.command, c.at, c.ref] for k, c in calls.items()},
            "installed": self.installed[-MAX_CARRIED:],
        }, ensure_ascii=False)

    @classmethod
    def load(cls, value: str | None) -> _State:
        try:
            data = json.loads(value) if value else {}
            state = cls(offset=int(data["offset"]), hash=str(data["hash"]), cwd=data.get("cwd"),
                        session=data.get("session"),
                        calls={k: _Call(bool(v[0]), v[1], list(v[2]), v[3], v[4], v[5])
                               for k, v in data.get("calls", {}).items()},
                        installed=list(data.get("installed", [])))
        except (ValueError, KeyError, TypeError, IndexError):
            return cls()  # no cursor, or one this version cannot read: from the start
        for call in state.calls.values():
            state.named(call)
        state.names.update({entry[1]: entry[0] for entry in state.installed})
        return state

    def named(self, call: _Call) -> None:
        self.names.update((names.fold(n), call.ecosystem) for n in call.names)


class _Collected:
    def __init__(self, name: str, ecosystem: str) -> None:
        self.name = name
        self.ecosystem = ecosystem
        self.evidence: list[tuple[float, str, Evidence]] = []  # (confidence, drafted reason, evidence)
        self.replacement: str | None = None

    def candidate(self) -> Candidate:
        ranked = sorted(self.evidence, key=lambda e: -e[0])
        doubt = 1.0
        for confidence, _, _ in ranked:
            doubt *= 1 - confidence
        reason = ranked[0][1] + (f"; replaced by {self.replacement}" if self.replacement else "")
        return Candidate(name=self.name, ecosystem=self.ecosystem, reason=reason[:1000],
                         confidence=min(0.95, 1 - doubt), evidence=tuple(e for _, _, e in ranked),
                         replacement=self.replacement)


def _quote(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _inside(cwd: Any, roots: tuple[PurePath, ...], cache: dict[str, bool]) -> bool:
    if not isinstance(cwd, str) or not cwd:
        return False
    if cwd not in cache:
        path = PurePath(cwd)
        cache[cwd] = any(path == root or root in path.parents for root in roots)
    return cache[cwd]


class _Miner:
    def __init__(self, repo_root: Path, vocabulary: Vocabulary, report: TranscriptReport) -> None:
        self.roots = tuple(dict.fromkeys((PurePath(repo_root), PurePath(repo_root.resolve()))))
        self.vocabulary = vocabulary
        self.report = report
        self.found: dict[tuple[str, str], _Collected] = {}
        self.sessions: set[tuple[str, str]] = set()
        self.inside_cache: dict[str, bool] = {}
        self.package_manager = ecosystems.command_hint()

    # --- candidates ---

    def _add(self, ecosystem: str, name: str, confidence: float, reason: str, evidence: Evidence,
             replacement: Named | None = None) -> None:
        key = (ecosystem, ecosystems.normalize(name, ecosystem))
        collected = self.found.setdefault(key, _Collected(name, ecosystem))
        collected.evidence.append((confidence, reason, evidence))
        if replacement is not None and collected.replacement is None:
            collected.replacement = replacement.name

    def _rejected(self, origin: str, call: _Call, path: Path, said: str | None, state: _State) -> None:
        day = call.at[:10]
        where = f"in a {_TOOL_NAMES[origin]} session on {day}"
        for name in call.names:
            replacement = None
            if said:
                replacement = replacement_in(said, self.vocabulary, state.names, Named(name, call.ecosystem))
                reason, confidence = f'rejected {where}: "{_quote(said)}"', 0.8
            else:
                reason, confidence = f"rejected {where} (`{_quote(call.command, 200)}`)", 0.6
            self._add(call.ecosystem, name, confidence, reason,
                      Evidence(origin=origin, role="rejected", ref=call.ref, summary=_quote(said or call.command, 500),
                               at=call.at, path=str(path)), replacement)

    def _result(self, origin: str, call: _Call, path: Path, state: _State, *, failed: bool) -> None:
        if failed:
            return  # an install that failed, or a removal that did: no one's judgement
        if not call.removes:
            added = [[call.ecosystem, names.fold(n), call.at, call.ref, call.command] for n in call.names]
            keys = {(e[0], e[1]) for e in added}  # the latest install of a name is the one a removal undoes
            state.installed = [e for e in state.installed if (e[0], e[1]) not in keys] + added
            for name in call.names:  # removed, then installed again (an upgrade, a clean reinstall): kept
                self._forget_undone(call.ecosystem, name, path)
            return
        removed = {names.fold(n) for n in call.names}
        for entry in state.installed:
            ecosystem, key, at, ref, command = entry
            if ecosystem == call.ecosystem and key in removed:
                name = next(n for n in call.names if names.fold(n) == key)
                reason = (f"installed and then removed in a {_TOOL_NAMES[origin]} session on {at[:10]} "
                          f"(`{_quote(call.command, 200)}`)")
                self._add(ecosystem, name, 0.55, reason,
                          Evidence(origin=origin, role="undone", ref=call.ref, summary=_quote(call.command, 500),
                                   at=call.at, path=str(path)))
        state.installed = [e for e in state.installed if not (e[0] == call.ecosystem and e[1] in removed)]

    def _forget_undone(self, ecosystem: str, name: str, path: Path) -> None:
        key = (ecosystem, ecosystems.normalize(name, ecosystem))
        collected = self.found.get(key)
        if collected is None:
            return
        collected.evidence = [e for e in collected.evidence if not (e[2].role == "undone" and e[2].path == str(path))]
        if not collected.evidence:
            del self.found[key]

    def _said(self, origin: str, text: str, at: str, ref: str, path: Path, state: _State) -> None:
        said = read_said(text, self.vocabulary, state.names)
        if said is None:
            return
        confidence = (0.7 if said.strong else 0.45) + (0.1 if said.replacement else 0.0)
        reason = f'said in a {_TOOL_NAMES[origin]} session on {at[:10]}: "{_quote(text)}"'
        self._add(said.against.ecosystem, said.against.name, confidence, reason,
                  Evidence(origin=origin, role="said", ref=ref, summary=_quote(text, 500), at=at, path=str(path)),
                  said.replacement)

    def _parse(self, line: bytes) -> Any:
        try:
            record = json.loads(line)
        except ValueError:
            self.report.corrupt_lines += 1
            return None
        if not isinstance(record, dict):
            self.report.corrupt_lines += 1
            return None
        return record

    # --- Claude Code ---

    def claude(self, path: Path, lines: Iterable[bytes], state: _State) -> None:
        counted = False  # the file is one session: counted once a record of it lies in the repository
        for line in lines:
            if not _well_formed(line):
                if line.strip():
                    self.report.corrupt_lines += 1
                continue
            if not counted and (cwd := _CWD.search(line)):
                try:
                    counted = _inside(json.loads(b'"' + cwd[1] + b'"'), self.roots, self.inside_cache)
                except ValueError:
                    pass
                if counted:
                    self.sessions.add((CLAUDE, str(path)))
            if b'"tool_use"' in line:
                if b'"command"' not in line or not self.package_manager.search(line):
                    continue
            elif b'"tool_result"' in line:
                if not state.calls or not _answers(_TOOL_USE_ID, line, state):
                    continue
            elif not (b'"user"' in line and _PHRASE.search(line)):
                continue
            record = self._parse(line)
            if record is None or record.get("isMeta") or record.get("isCompactSummary"):
                continue
            if not _inside(record.get("cwd"), self.roots, self.inside_cache):
                continue
            session = str(record.get("sessionId") or path.stem)
            message = record.get("message")
            content = message.get("content") if isinstance(message, dict) else None
            at = str(record.get("timestamp") or "")
            if record.get("type") == "assistant" and isinstance(content, list):
                for block in content:
                    if isinstance(block, dict) and block.get("type") == "tool_use":
                        self._claude_call(block, at, f"{session}/{record.get('uuid')}", state)
            elif record.get("type") == "user":
                if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result"
                                                     for b in content):
                    for block in content:
                        if isinstance(block, dict) and block.get("type") == "tool_result":
                            self._claude_result(block, path, state)
                elif _human(record):
                    text = _text(content)
                    if text and not text.lstrip().startswith(_HARNESS_TEXT):
                        self._said(CLAUDE, text, at, f"{session}/{record.get('uuid')}", path, state)

    def _claude_call(self, block: dict[str, Any], at: str, ref: str, state: _State) -> None:
        command = block.get("input", {}).get("command") if isinstance(block.get("input"), dict) else None
        call_id = block.get("id")
        if not isinstance(command, str) or not isinstance(call_id, str):
            return
        for found in package_commands(command):
            _await(state, call_id, _Call(found.removes, found.ecosystem, list(found.names), found.command, at,
                                         f"{ref}/{call_id}"))
            break  # one call, one verdict: the first install or removal it runs

    def _claude_result(self, block: dict[str, Any], path: Path, state: _State) -> None:
        call = state.calls.pop(str(block.get("tool_use_id")), None)
        if call is None:
            return
        text = _text(block.get("content"))
        if block.get("is_error") and CLAUDE_REJECTION in text[:200]:
            if call.removes:
                return  # the person kept it
            self._rejected(CLAUDE, call, path, _rejection_words(text), state)
        else:
            self._result(CLAUDE, call, path, state, failed=bool(block.get("is_error")))

    # --- Codex ---

    def codex(self, path: Path, lines: Iterable[bytes], state: _State) -> None:
        """A session counts from the first turn whose folder lies inside the repository (it may
        `cd` there later, or leave); outside, only the lines that say where it is are parsed."""
        inside = _inside(state.cwd, self.roots, self.inside_cache)
        for line in lines:
            if not _well_formed(line):
                if line.strip():
                    self.report.corrupt_lines += 1
                continue
            if b'"session_meta"' in line or b'"turn_context"' in line:
                record = self._parse(line)
                payload = record.get("payload") if record else None
                if record and record.get("type") in ("session_meta", "turn_context") and isinstance(payload, dict) \
                        and isinstance(payload.get("cwd"), str):
                    state.cwd = payload["cwd"]
                    if record["type"] == "session_meta":
                        state.session = state.session or str(payload.get("id") or path.stem)
                    inside = _inside(state.cwd, self.roots, self.inside_cache)
                    if not inside:
                        state.calls, state.awaiting = {}, []  # what runs elsewhere is another project's
                continue
            if not inside:
                continue
            self.sessions.add((CODEX, state.session or path.stem))
            if b'"function_call"' in line or b'"local_shell_call"' in line:
                if not self.package_manager.search(line):
                    continue
            elif b'"function_call_output"' in line:
                if not state.calls or not _answers(_CALL_ID, line, state):
                    continue
            elif b'"turn_aborted"' in line:
                if not state.calls:
                    continue
            elif not ((b'"user_message"' in line or _USER_ROLE.search(line))
                      and (state.awaiting or _PHRASE.search(line))):
                continue
            record = self._parse(line)
            payload = record.get("payload") if record else None
            if not isinstance(payload, dict):
                continue
            session = state.session or path.stem
            at = str(record.get("timestamp") or "")
            kind = payload.get("type")
            if kind in ("function_call", "local_shell_call"):
                self._codex_call(payload, at, session, state)
            elif kind == "function_call_output":
                self._codex_result(payload, path, state)
            elif kind == "turn_aborted":
                # The person stopped the turn while these ran: as good as a rejection.
                state.awaiting.extend(c for c in state.calls.values() if not c.removes)
                state.calls = {}
            elif kind == "user_message" or (kind == "message" and payload.get("role") == "user"):
                text = payload.get("message") if kind == "user_message" else _text(payload.get("content"))
                if not isinstance(text, str) or not text.strip() or text.lstrip().startswith(_HARNESS_TEXT):
                    continue
                if text == state.last_said:
                    continue  # the same words, recorded both as a response item and as an event
                state.last_said = text
                self._codex_reasons(path, state, text)
                self._said(CODEX, text, at, f"{session}/{at}", path, state)
        self._codex_reasons(path, state, None)  # no message after them in what there is to read

    def _codex_call(self, payload: dict[str, Any], at: str, session: str, state: _State) -> None:
        call_id = payload.get("call_id") or payload.get("id")
        if payload.get("type") == "local_shell_call":
            action = payload.get("action")
            command: Any = action.get("command") if isinstance(action, dict) else None
        else:
            try:
                arguments = json.loads(payload.get("arguments") or "{}")
            except (TypeError, ValueError):
                return
            command = arguments.get("command", arguments.get("cmd")) if isinstance(arguments, dict) else None
        if isinstance(command, list):  # ["bash", "-lc", "pip install x"], or the argv itself
            words = [str(w) for w in command]
            command = words[-1] if len(words) >= 3 and words[-2] in ("-c", "-lc") else " ".join(words)
        if not isinstance(command, str) or not isinstance(call_id, str):
            return
        for found in package_commands(command):
            _await(state, call_id, _Call(found.removes, found.ecosystem, list(found.names), found.command, at,
                                         f"{session}/{call_id}"))
            break

    def _codex_result(self, payload: dict[str, Any], path: Path, state: _State) -> None:
        call_id = str(payload.get("call_id"))
        call = state.calls.pop(call_id, None)
        if call is None:
            return
        output = payload.get("output")
        if isinstance(output, dict):
            output = output.get("content", "")
        text = output if isinstance(output, str) else ""
        if text.strip().startswith(CODEX_REJECTIONS):
            if not call.removes:
                state.awaiting.append(call)
            return
        exit_code = None
        try:
            parsed = json.loads(text)
            exit_code = parsed.get("metadata", {}).get("exit_code") if isinstance(parsed, dict) else None
        except ValueError:
            match = re.search(r"(?:Exit code|exit_code)[:=]\s*(-?\d+)", text[:2000])
            exit_code = int(match[1]) if match else None
        self._result(CODEX, call, path, state, failed=exit_code not in (None, 0))

    def _codex_reasons(self, path: Path, state: _State, text: str | None) -> None:
        """A Codex rejection has no words of its own: the person's next message is its reason."""
        for call in state.awaiting:
            self._rejected(CODEX, call, path, text, state)
        state.awaiting = []


def _rejection_words(text: str) -> str | None:
    """The person's words in a Claude Code rejection, if they gave any."""
    for marker in CLAUDE_WORDS:
        if marker in text:
            words = text.split(marker, 1)[1].replace("</tool_use_error>", "").strip()
            return words or None
    return None


def _human(record: dict[str, Any]) -> bool:
    """A person typed it: not a sub-agent's prompt, not a hook's or the harness's."""
    if record.get("isSidechain") or record.get("userType") not in (None, "external"):
        return False
    origin = record.get("origin")
    kind = origin.get("kind", origin.get("type")) if isinstance(origin, dict) else origin
    return kind in (None, "human", "user", "external")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b["text"] for b in content
                         if isinstance(b, dict) and b.get("type") in ("text", "input_text") and isinstance(b.get("text"), str))
    return ""


# --- the run -----------------------------------------------------------------------------------


def _slug(path: PurePath) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", str(path))


def claude_files(claude_dir: Path, repo_root: Path) -> list[Path]:
    """`<claude_dir>/projects/<slug>/*.jsonl` where the slug (the session's folder, every other
    character '-') is the repository's or a folder's inside it. Records are checked again on
    their own `cwd`: two paths can share a slug."""
    projects = claude_dir / "projects"
    slugs = {_slug(PurePath(repo_root)), _slug(PurePath(repo_root.resolve()))}
    found = []
    for folder in sorted(_children(projects)):
        if folder.is_dir() and any(folder.name == s or folder.name.startswith(s + "-") for s in slugs):
            found += sorted(p for p in _children(folder) if p.suffix == ".jsonl" and p.is_file())
    return found


def codex_files(codex_dir: Path) -> list[Path]:
    """`<codex_dir>/sessions/YYYY/MM/DD/rollout-*.jsonl`."""
    sessions = codex_dir / "sessions"
    return sorted(p for p in sessions.rglob("rollout-*.jsonl") if p.is_file()) if sessions.is_dir() else []


@dataclass(slots=True)
class Sources:
    claude_dir: Path | None
    codex_dir: Path | None


def mine(conn_cursors: dict[str, dict[str, str]], repo_root: Path, sources: Sources, vocabulary: Vocabulary,
         report: TranscriptReport) -> dict[str, dict[str, str]]:
    """Read what is new in every transcript file of the project; returns the cursors to store
    (source → file → value). Candidates land in `report.candidates`."""
    miner = _Miner(repo_root, vocabulary, report)
    updated: dict[str, dict[str, str]] = {CLAUDE: {}, CODEX: {}}
    for source, folder, files in ((CLAUDE, sources.claude_dir, claude_files),
                                  (CODEX, sources.codex_dir, lambda d, _: codex_files(d))):
        if folder is None:
            continue
        if not folder.is_dir():
            report.missing.append(str(folder))
            continue
        for path in files(folder, repo_root):
            report.files += 1
            key = str(path)
            state = _State.load(conn_cursors[source].get(key))
            value = _read_file(miner, source, path, state, report)
            if value is not None:
                updated[source][key] = value
    report.sessions = len(miner.sessions)
    report.candidates = [c.candidate() for c in miner.found.values()]
    return updated


def _read_file(miner: _Miner, source: str, path: Path, state: _State, report: TranscriptReport) -> str | None:
    try:
        size = path.stat().st_size
        if size == state.offset:
            # Nothing new: not even opened (a mine on every editor start passes thousands of these).
            # A rewrite to the very same length is noticed once the file grows.
            return None
        handle = path.open("rb")
    except OSError:
        return None
    with handle:
        if state.offset and (size < state.offset or fingerprint(handle, state.offset) != state.hash):
            state = _State()  # rewritten: read again from the start
            report.files_reread += 1
        report.files_read += 1
        handle.seek(state.offset)
        lines = _Lines(handle, state.offset, report)
        if source == CLAUDE:
            miner.claude(path, lines, state)
        else:
            miner.codex(path, lines, state)
        state.offset = lines.offset
        state.hash = fingerprint(handle, state.offset)
        return state.dump()


def run(ctx: Context, graveyard: Graveyard, actor: Actor, project: str, repo_root: Path, sources: Sources,
        ) -> TranscriptReport:
    """Mine what is new in the project's transcripts; the candidates become proposals and the
    cursors move, in one transaction (a run that fails leaves neither)."""
    project = validate.project(project)
    report = TranscriptReport()
    known = manifest_vocabulary(repo_root)
    counts = Counter(known.values())
    vocabulary = Vocabulary(known, counts.most_common(1)[0][0] if counts else "other")
    with ctx.store.read() as conn:
        cursors = {source: mining.cursors(conn, project, source) for source in (CLAUDE, CODEX)}
    updated = mine(cursors, repo_root, sources, vocabulary, report)
    with ctx.store.write() as tx:
        report.proposals = candidates.propose(ctx, graveyard, actor, project, report.candidates)
        for source, values in updated.items():
            for key, value in values.items():
                mining.set_cursor(tx, project, source, key, value, ctx.now())
    return report
