"""Shell command lines, as a Dockerfile's RUN or an agent's tool call holds them: which installer
a simple command runs (each ecosystem describes its own, `base.Installer`) and the packages it
names."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import NamedTuple

from cenotaph.nlp.ecosystems.base import Installer

# Operators end a simple command; a redirection (`2>&1`, `> log`) ends what is parsed of it.
SHELL_OPERATOR = re.compile(r"&&|\|\||\d*[<>]+&?\d*-?|[;&|()]")
SHELL_TOKEN = re.compile(
    rf"""{SHELL_OPERATOR.pattern}|(?:[^\s;&|()<>"'\\]++|\\.?|"(?:[^"\\]++|\\.?)*+"?|'[^']*+'?)+"""
)
_COMMAND_PREFIXES = frozenset({"sudo", "env", "nohup", "time", "exec", "command"})
_ASSIGNMENT = re.compile(r"\w+=")
_LINE_CONTINUATION = re.compile(r"\\\r?\n")


def pattern_span(pattern: str) -> Callable[[str], tuple[int, int] | None]:
    """An installer's `package_span`: the span of the group `name` (else the whole match) of
    `pattern` matched at the start of an argument."""
    compiled = re.compile(pattern)
    group = "name" if "name" in compiled.groupindex else 0

    def span(argument: str) -> tuple[int, int] | None:
        match = compiled.match(argument)
        return match.span(group) if match else None

    return span


class Word(NamedTuple):
    text: str
    start: int  # offset into the document


def _unquoted(word: Word) -> Word:
    text = word.text
    if text[:1] not in ("'", '"'):
        return word
    closed = len(text) > 1 and text[-1] == text[0]
    return Word(text[1:-1] if closed else text[1:], word.start + 1)


@lru_cache(maxsize=None)
def _program(spec: str) -> tuple[re.Pattern[str], tuple[str, ...]]:
    program, *following = spec.split()
    return re.compile(program), tuple(following)


def _launched(installers: Iterable[Installer], words: list[str]) -> tuple[Installer, int] | None:
    """The installer the words run, and how many of them name it (`python -m pip`: three). The
    longest name wins (`uv tool` over `uv`), the first installer among equals."""
    program = words[0].rsplit("/", 1)[-1]
    launched = None
    for installer in installers:
        for spec in installer.programs:
            pattern, following = _program(spec)
            if pattern.fullmatch(program) and tuple(words[1 : 1 + len(following)]) == following and \
                    (launched is None or 1 + len(following) > launched[1]):
                launched = installer, 1 + len(following)
    return launched


def package_words(command: list[Word], installers: Iterable[Installer],
                  ) -> tuple[Installer, bool, list[tuple[Word, tuple[int, int]]]] | None:
    """The installer a simple command runs, whether it removes (else installs), and each package
    argument with the span of its name in it; None when the command is not an install or removal."""
    words = [_unquoted(word) for word in command]
    i = 0  # skip `sudo -E`, `env`, `DEBIAN_FRONTEND=noninteractive` and the like
    while i < len(words) and (
        words[i].text in _COMMAND_PREFIXES
        or words[i].text.startswith("-")
        or _ASSIGNMENT.match(words[i].text)
    ):
        i += 1
    if i >= len(words):
        return None
    launched = _launched(installers, [word.text for word in words[i:]])
    if launched is None:
        return None
    installer, length = launched
    removing: bool | None = None
    skip_argument = False
    packages = []
    for word in words[i + length :]:
        if skip_argument:
            skip_argument = False
        elif word.text.startswith("-"):
            skip_argument = word.text in installer.options_with_argument
        elif removing is None:
            if word.text in installer.subcommands:
                removing = False
            elif word.text in installer.removals:
                removing = True
            else:
                return None
        elif span := installer.package_span(word.text):
            packages.append((word, span))
    return None if removing is None else (installer, removing, packages)


class PackageCommand(NamedTuple):
    removes: bool  # `pip uninstall`, `npm remove`, …; else an install or add
    ecosystem: str
    names: tuple[str, ...]  # as written, without versions or extras
    command: str  # the simple command, as written


def package_commands(script: str, installers: Iterable[Installer]) -> list[PackageCommand]:
    """The installs and removals by `installers` in a shell command line (several commands joined
    by `&&`, `;`, `|` or new lines; environment assignments and `sudo` before them), in order."""
    found = []
    for line in _LINE_CONTINUATION.sub(" ", script).splitlines():
        command: list[Word] = []
        for token in [*SHELL_TOKEN.finditer(line), None]:
            if token is not None and token.group().startswith("#"):
                token = None  # a shell comment runs to the end of the line
            if token is None or SHELL_OPERATOR.fullmatch(token.group()):
                parsed = package_words(command, installers) if command else None
                if parsed is not None and parsed[2]:
                    installer, removes, packages = parsed
                    found.append(PackageCommand(removes, installer.ecosystem,
                                                tuple(word.text[start:end] for word, (start, end) in packages),
                                                line[command[0].start:command[-1].start + len(command[-1].text)]))
                command = []
                if token is None:
                    break
            else:
                command.append(Word(token.group(), token.start()))
    return found
