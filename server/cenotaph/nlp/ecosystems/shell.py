"""Shell command lines, as a Dockerfile's RUN or an agent's tool call holds them: which installer
a simple command runs (each ecosystem describes its own, `base.Installer`) and the packages it
names."""

from __future__ import annotations

import re
import functools
import posixpath
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any, NamedTuple

from cenotaph.nlp.ecosystems.base import Installer, LazyPattern

# Operators end a simple command; a redirection (`2>&1`, `> log`) ends what is parsed of it.
SHELL_OPERATOR = re.compile(r"&&|\|\||\d*[<>]+&?\d*-?|[;&|()]")
SHELL_TOKEN = re.compile(
    rf"""{SHELL_OPERATOR.pattern}|(?:[^\s;&|()<>"'\\]++|\\.?|"(?:[^"\\]++|\\.?)*+"?|'[^']*+'?)+"""
)
_ASSIGNMENT = re.compile(r"\w+=")
_LINE_CONTINUATION = re.compile(r"\\\r?\n")
# A quoted heredoc delimiter (`<<'EOF'`), which bashlex 0.18 refuses: spaces instead of its quotes keep
# every offset (the body is read as written either way; only expansions would differ).
_QUOTED_DELIMITER = LazyPattern(r"(<<-?[ \t]*)(?:'\w+'|\"\w+\"|\\\w+)")
# What only a parser reads right: heredocs, substitutions and control structures. A line without
# them (most installs) is split on its operators, and bashlex (~0.1 s to import) stays unloaded.
_NEEDS_PARSER = re.compile(r"<<|\$\(|`|(?:^|[;&|(\s])(?:if|then|else|elif|do|done|for|while|until|case|function|\{)(?=\s|$)")

# Programs that run the command their arguments hold: the options that take an argument, and how
# many positional arguments come before that command (`timeout 300 pip …`).
_WRAPPERS: dict[str, tuple[frozenset[str], int]] = {
    "sudo": (frozenset("-u --user -g --group -C --close-from -D --chdir -h --host -p --prompt -r --role -t --type "
                       "-U --other-user -T --command-timeout".split()), 0),
    "doas": (frozenset({"-u", "-C"}), 0),
    "env": (frozenset("-u --unset -C --chdir -S --split-string".split()), 0),
    "nice": (frozenset({"-n", "--adjustment"}), 0),
    "ionice": (frozenset("-c --class -n --classdata -p --pid".split()), 0),
    "time": (frozenset("-f --format -o --output".split()), 0),
    "timeout": (frozenset("-s --signal -k --kill-after".split()), 1),
    "stdbuf": (frozenset({"-i", "-o", "-e"}), 0),
    "xargs": (frozenset("-a --arg-file -d --delimiter -E -I -L -n --max-args -P --max-procs -s --max-chars".split()), 0),
    "nohup": (frozenset(), 0),
    "exec": (frozenset({"-a"}), 0),
    "command": (frozenset(), 0),
    "builtin": (frozenset(), 0),
}
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
_SHELL_OPTIONS_WITH_ARGUMENT = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})


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


def unwrapped(words: list[Word]) -> tuple[list[Word], str | None, bool]:
    """The command `words` runs once wrappers (`sudo`, `env -u X`, `nice -n 10`, `timeout 60`,
    `xargs`, …) and assignments before it are peeled off: its words, the script a shell runs
    (`bash -c '…'`, `eval …`) when it runs one, and whether `xargs` adds the words it reads."""
    i, by_xargs = 0, False
    while i < len(words):
        text = words[i].text
        if _ASSIGNMENT.match(text):
            i += 1
            continue
        program = text.rsplit("/", 1)[-1]
        if program == "eval":
            return [], " ".join(word.text for word in words[i + 1 :]), by_xargs
        if program in _SHELLS:
            return [], _shell_script(words[i + 1 :]), by_xargs
        if program not in _WRAPPERS:
            break
        options, before = _WRAPPERS[program]
        by_xargs |= program == "xargs"
        i += 1
        while i < len(words):
            text = words[i].text
            if text == "--":
                i += 1
                break
            if text.startswith("-") and len(text) > 1:
                i += 2 if text in options else 1  # `-n10` and `--signal=KILL` hold their argument
            elif program == "env" and _ASSIGNMENT.match(text):
                i += 1
            elif before:
                before -= 1
                i += 1
            else:
                break
    return words[i:], None, by_xargs


def _shell_script(arguments: list[Word]) -> str | None:
    """The script of `bash -c SCRIPT` (`-lc`, `-ec`, `-o pipefail -c`), or None for a script file."""
    takes_script = False
    for i, word in enumerate(arguments):
        text = word.text
        if text in _SHELL_OPTIONS_WITH_ARGUMENT:
            continue
        if i and arguments[i - 1].text in _SHELL_OPTIONS_WITH_ARGUMENT:
            continue
        if text.startswith(("-", "+")) and len(text) > 1:
            takes_script |= not text.startswith("--") and "c" in text[1:]
            continue
        return text if takes_script else None
    return None


def package_words(command: list[Word], installers: Iterable[Installer],
                  ) -> tuple[Installer, bool, list[tuple[Word, tuple[int, int]]]] | None:
    """The installer a simple command runs, whether it removes (else installs), and each package
    argument with the span of its name in it; None when the command is not an install or removal."""
    words, _, _ = unwrapped([_unquoted(word) for word in command])
    if not words:
        return None
    launched = _launched(installers, [word.text for word in words])
    if launched is None:
        return None
    installer, length = launched
    removing: bool | None = None if installer.subcommands else False
    skipped = installer.skipped
    packages: list[tuple[Word, tuple[int, int]]] = []
    named_source = options_done = False
    pending = ""  # what the next word is: an option's package, its source package, or skipped

    def add(word: Word) -> None:
        if span := installer.package_span(word.text):
            packages.append((word, span))

    for word in words[length:]:
        text = word.text
        if pending:
            if pending != "skip":
                add(word)
            pending = ""
        elif text.startswith("-") and len(text) > 1 and not options_done:
            options_done = text == "--"
            option, equals, value = text.partition("=")
            kind = "package" if option in installer.package_options else "source" \
                if option in installer.source_options else "skip" if option in installer.options_with_argument else ""
            named_source |= kind == "source"
            if kind and equals:
                if kind != "skip":
                    add(Word(value, word.start + len(option) + 1))
            else:
                pending = kind
        elif skipped:
            skipped -= 1
        elif removing is None:
            if text in installer.subcommands:
                removing = False
            elif text in installer.removals:
                removing = True
            else:
                return None
        elif installer.positionals == "none":
            break
        else:
            if not (installer.positionals == "first" and named_source):
                add(word)
            if installer.positionals == "first":
                break  # the rest are the command's own arguments
    return None if removing is None else (installer, removing, packages)


class Command(NamedTuple):
    """A simple command of a shell command line, wrappers peeled off."""

    words: tuple[Word, ...]  # as the shell passes them (offsets into `text`'s line, -1 for words read by xargs)
    text: str  # as written
    stdin: str | None  # what it reads, when the line says: a heredoc, a here-string, a pipe from `echo`
    writes: tuple[tuple[str, bool], ...]  # its standard output redirected: (file, whether it appends)
    folder: str  # where the `cd`s before it went, relative to where the line runs ("" there)


class FileWrite(NamedTuple):
    """What a command writes into a file: text it appends or replaces the file with, or a `sed`
    script it edits the file with."""

    path: str  # relative to where the line runs, unless absolute
    appends: bool
    text: str | None
    sed: tuple[tuple[str, ...], bool] | None = None  # (scripts, extended regular expressions)


@lru_cache(maxsize=16)
def simple_commands(script: str) -> tuple[Command, ...]:
    """The simple commands a command line runs, in order: those of `$( )`, subshells, pipelines,
    `bash -c` scripts and control structures too. bashlex reads it; what bashlex refuses (`case`,
    `[[ ]]`, an unfinished quote) is split on its operators instead, without heredocs."""
    if not _NEEDS_PARSER.search(script):
        return tuple(_tokenized(script))
    import bashlex  # ~0.1 s to import: only for a line the operators alone do not split right

    out: list[Command] = []
    try:
        trees = bashlex.parse(_QUOTED_DELIMITER.sub(lambda m: m[1] + re.sub(r"['\"\\\\]", " ", m[0][len(m[1]):]),
                                                    script))
    except Exception:  # noqa: BLE001 - bashlex raises ParsingError, NotImplementedError and others on what it lacks
        return tuple(_tokenized(script))
    folder = [""]
    for tree in trees:
        _walk(tree, script, folder, out, None)
    return tuple(out)


def _walk(node: Any, script: str, folder: list[str], out: list[Command], stdin: str | None) -> str | None:
    """Collect the simple commands under a bashlex node into `out`; what the node prints, when known."""
    kind = node.kind
    if kind == "command":
        return _bash_command(node, script, folder, out, stdin)
    if kind == "pipeline":
        feed = None
        for part in node.parts:
            if part.kind not in ("pipe", "reservedword"):
                feed = _walk(part, script, folder, out, feed)
        return None
    if kind in ("commandsubstitution", "processsubstitution"):
        _walk(node.command, script, folder[:], out, None)
        return None
    subshell = kind == "compound" and node.list and getattr(node.list[0], "word", "") == "("
    inner = folder[:] if subshell else folder
    for child in (*getattr(node, "parts", ()), *getattr(node, "list", ())):
        _walk(child, script, inner, out, None)
    return None


def _bash_command(node: Any, script: str, folder: list[str], out: list[Command], stdin: str | None) -> str | None:
    words: list[Word] = []
    writes: list[tuple[str, bool]] = []
    for part in node.parts:
        for sub in getattr(part, "parts", ()):  # `$( )` in a word runs before the command
            _walk(sub, script, folder, out, None)
        if part.kind in ("word", "assignment"):
            words.append(Word(part.word, part.pos[0]))
        elif part.kind == "redirect":
            target = part.output
            if part.type in ("<<", "<<-"):
                body = part.heredoc.value
                stdin = body[: body.rfind("\n") + 1]  # the delimiter's line closes it
            elif part.type == "<<<" and getattr(target, "kind", "") == "word":
                stdin = target.word + "\n"
            elif part.type in (">", ">>", ">|", "&>", "&>>") and part.input in (None, 1) and \
                    getattr(target, "kind", "") == "word":
                writes.append((target.word, part.type.endswith(">>")))
    return _command(words, script[node.pos[0]:node.pos[1]], stdin, writes, folder, out)


def _command(words: list[Word], text: str, stdin: str | None, writes: list[tuple[str, bool]], folder: list[str],
             out: list[Command]) -> str | None:
    """Record a simple command (or the commands of the script it runs); what it prints, when known."""
    words, script, by_xargs = unwrapped(words)
    if script is not None:
        for command in simple_commands(script):
            out.append(command._replace(folder=posixpath.join(folder[0], command.folder) if folder[0] else
                                        command.folder))
        return None
    if by_xargs and stdin is not None:
        words = [*words, *(Word(argument, -1) for argument in stdin.split())]
    if not words:
        return None
    out.append(Command(tuple(words), text, stdin, tuple(writes), folder[0]))
    if words[0].text == "cd" and len(words) == 2:
        folder[0] = posixpath.normpath(posixpath.join(folder[0], words[1].text)) if words[1].text != "-" else ""
    return _printed([word.text for word in words], stdin)


_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", "'": "'", '"': '"'}
_ESCAPE = LazyPattern(r"\\(.)")
_FORMAT = LazyPattern(r"%[-+ #0-9.]*([sbdiqc%])")


def _escaped(text: str) -> str:
    return _ESCAPE.sub(lambda m: _ESCAPES.get(m[1], m[0]), text)


def _printed(words: list[str], stdin: str | None) -> str | None:
    """What `echo`, `printf`, `cat` (of its input) and `tee` print, or None for any other program."""
    program, arguments = words[0], words[1:]
    if program == "echo":
        flags = set()
        while arguments and re.fullmatch(r"-[neE]+", arguments[0]):
            flags |= set(arguments.pop(0)[1:])
        text = " ".join(arguments)
        return (_escaped(text) if "e" in flags else text) + ("" if "n" in flags else "\n")
    if program == "printf" and arguments:
        values = iter(arguments[1:])
        return _escaped(_FORMAT.sub(lambda m: "%" if m[1] == "%" else next(values, ""), arguments[0]))
    if program in ("cat", "tee") and (program == "tee" or len(arguments) == 0 or arguments == ["-"]):
        return stdin
    return None


def _tokenized(script: str) -> list[Command]:
    """The simple commands of a line bashlex refused, split on the shell's operators: words and
    redirections, a pipe's input from `echo`; no heredocs, substitutions or folders."""
    out: list[Command] = []
    folder = [""]
    for line in _LINE_CONTINUATION.sub(" ", script).splitlines():
        words: list[Word] = []
        writes: list[tuple[str, bool]] = []
        feed: str | None = None
        redirect = ""
        for token in [*SHELL_TOKEN.finditer(line), None]:
            if token is not None and token.group().startswith("#"):
                token = None  # a shell comment runs to the end of the line
            text = token.group() if token is not None else ""
            if redirect and token is not None and not SHELL_OPERATOR.fullmatch(text):
                if redirect.lstrip("1") in (">", ">>", ">|"):
                    writes.append((_unquoted(Word(text, 0)).text, redirect.endswith(">>")))
                redirect = ""
            elif token is not None and re.fullmatch(r"\d*[<>]+&?\d*-?", text):
                redirect = text
            elif token is None or SHELL_OPERATOR.fullmatch(text):
                printed = None
                if words:
                    start, end = words[0].start, words[-1].start + len(words[-1].text)
                    printed = _command([_unquoted(word) for word in words], line[start:end], feed, writes, folder, out)
                feed = printed if text == "|" else None
                words, writes, redirect = [], [], ""
                if token is None:
                    break
            else:
                words.append(Word(text, token.start()))
    return out


def file_writes(script: str) -> list[FileWrite]:
    """What a command line writes into files with known text: `echo`, `printf` and heredocs
    redirected or piped into `tee`, and `sed -i` scripts (the file's own text is not read here)."""
    found = []
    for command in simple_commands(script):
        words = [word.text for word in command.words]
        where = functools.partial(posixpath.join, command.folder)
        printed = _printed(words, command.stdin)
        if printed is not None:
            found += [FileWrite(where(path), appends, printed) for path, appends in command.writes]
        if words[0] == "tee" and command.stdin is not None:
            files = [word for word in words[1:] if not word.startswith("-")]
            appends = any(word in ("-a", "--append") for word in words[1:])
            found += [FileWrite(where(path), appends, command.stdin) for path in files]
        elif words[0] == "sed" and (edit := _sed_edit(words[1:])) is not None:
            scripts, extended, files = edit
            found += [FileWrite(where(path), False, None, (scripts, extended)) for path in files]
    return found


def _sed_edit(arguments: list[str]) -> tuple[tuple[str, ...], bool, list[str]] | None:
    """`sed -i`'s scripts, whether they are extended regular expressions, and its files; None
    for a sed that edits no file in place (or reads its script from a file)."""
    scripts: list[str] = []
    positional: list[str] = []
    in_place = extended = False
    pending = False
    for argument in arguments:
        if pending:
            scripts.append(argument)
            pending = False
        elif argument in ("-e", "--expression"):
            pending = True
        elif argument.startswith("--expression="):
            scripts.append(argument.partition("=")[2])
        elif argument in ("-f", "--file") or argument.startswith("--file="):
            return None
        elif argument.startswith("--"):
            in_place |= argument.startswith("--in-place")
            extended |= argument == "--regexp-extended"
        elif argument.startswith("-") and len(argument) > 1:
            flags = argument[1:]
            if "i" in flags:  # `-i`, `-i.bak`, `-Ei`; what follows an `i` is a backup suffix
                in_place = True
                flags = flags[: flags.index("i")]
            extended |= "E" in flags or "r" in flags
        else:
            positional.append(argument)
    if not scripts and positional:
        scripts.append(positional.pop(0))
    return (tuple(scripts), extended, positional) if in_place and scripts and positional else None


class PackageCommand(NamedTuple):
    removes: bool  # `pip uninstall`, `npm remove`, …; else an install or add
    ecosystem: str
    names: tuple[str, ...]  # as written, without versions or extras
    command: str  # the simple command, as written
    # Each name's library in the ecosystem its packager took it from, (ecosystem, name), or None.
    same_as: tuple[tuple[str, str] | None, ...] = ()


def package_commands(script: str, installers: Iterable[Installer]) -> list[PackageCommand]:
    """The installs and removals by `installers` in a shell command line (several commands joined
    by `&&`, `;`, `|` or new lines, in `$( )`, subshells and `bash -c` scripts; wrappers and
    environment assignments before them), in order."""
    installers = tuple(installers)
    found = []
    for command in simple_commands(script):
        parsed = package_words(list(command.words), installers)
        if parsed is not None and parsed[2]:
            installer, removes, packages = parsed
            names = tuple(word.text[start:end] for word, (start, end) in packages)
            same = tuple(installer.same_as(name) if installer.same_as else None for name in names)
            found.append(PackageCommand(removes, installer.ecosystem, names, command.text, same))
    return found


@lru_cache(maxsize=None)
def _triggers(installers: tuple[Installer, ...]) -> tuple[tuple[re.Pattern[str], frozenset[str]], ...]:
    """Per installer: its programs as a pattern, and the words one of which must also be in a line
    it may install from (none for a runner: `npx x` installs x)."""
    found = []
    for installer in installers:
        programs = "|".join(r"\s+".join(spec.split()) for spec in installer.programs)
        needed = installer.subcommands | installer.package_options | installer.source_options \
            if installer.subcommands or installer.positionals == "none" else frozenset()
        found.append((re.compile(rf"(?<![\w.-])(?:{programs})(?![\w.-])"), needed))
    return tuple(found)


_WORD = LazyPattern(r"[\w.+-]+")


def may_install(script: str, installers: Iterable[Installer]) -> bool:
    """The cheap test before a line is parsed: whether one of `installers` may install in it (its
    program's name, and a word it installs with)."""
    words: set[str] | None = None
    for program, needed in _triggers(tuple(installers)):
        if program.search(script):
            if not needed:
                return True
            words = set(_WORD.findall(script)) if words is None else words
            if not needed.isdisjoint(words):
                return True
    return False


# sed's basic regular expressions as Python's: `\(` groups and `(` is a character, and so on.
_BRE_SWAPPED = frozenset("(){}+?|")
_CLASSES = {"[:space:]": r"\s", "[:digit:]": r"\d", "[:alpha:]": "a-zA-Z", "[:alnum:]": "a-zA-Z0-9",
            "[:upper:]": "A-Z", "[:lower:]": "a-z", "[:blank:]": r" \t", "[:punct:]": r"!-/:-@\[-`{-~"}
_SED_COMMAND = LazyPattern(r"\s*(?:(?P<line>\d+|\$)|/(?P<regex>(?:[^/\\]|\\.)*)/)?\s*(?P<command>[saic])")


def _python_regex(pattern: str, extended: bool) -> str:
    for posix, python in _CLASSES.items():
        pattern = pattern.replace(posix, python)
    if extended:
        return pattern
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            following = pattern[i + 1]
            out.append(following if following in _BRE_SWAPPED else char + following)
            i += 2
            continue
        out.append("\\" + char if char in _BRE_SWAPPED else char)
        i += 1
    return "".join(out)


def _replacement(template: str) -> Callable[[re.Match[str]], str]:
    def expand(match: re.Match[str]) -> str:
        return re.sub(r"\\(\d)|\\n|\\(.)|&",
                      lambda m: (match.group(int(m[1])) or "") if m[1] else "\n" if m[0] == "\\n" else
                      m[2] if m[2] is not None else match.group(), template)

    return expand


def _split_sed(script: str) -> list[tuple[str, str | None, str, list[str]]] | None:
    """A sed script's commands: (line address, regex address, command, its parts: pattern,
    replacement and flags of an `s`, the text of an `a`, `i` or `c`); None when it holds another."""
    commands = []
    i = 0
    while i < len(script):
        match = _SED_COMMAND.match(script, i)
        if match is None:
            return None
        command, i = match["command"], match.end()
        if command == "s":
            if i >= len(script):
                return None
            delimiter, parts, part, i = script[i], [], "", i + 1
            while i < len(script) and len(parts) < 2:
                if script[i] == "\\" and i + 1 < len(script):
                    part += script[i + 1] if script[i + 1] == delimiter else script[i:i + 2]
                    i += 2
                elif script[i] == delimiter:
                    parts.append(part)
                    part, i = "", i + 1
                else:
                    part += script[i]
                    i += 1
            flags = re.match(r"[gIip0-9]*", script[i:])[0]  # type: ignore[index]
            i += len(flags)
            if len(parts) < 2:
                return None
            commands.append((match["line"], match["regex"], command, [*parts, flags]))
        else:  # GNU's one-line `a text` or `a\` then the text
            text = script[i:].lstrip()
            text = text[1:].lstrip("\n") if text.startswith("\\") else text
            commands.append((match["line"], match["regex"], command, [text]))
            i = len(script)
        rest = re.match(r"\s*[;\n]?", script[i:])
        i += rest.end() if rest else 0
    return commands


def sed_edited(scripts: tuple[str, ...], extended: bool, text: str) -> str | None:
    """A file's text after `sed -i` ran `scripts` on it (`s`, `a`, `i` and `c` commands, each
    after an optional line or /regex/ address); None when a script holds any other command."""
    commands = [command for script in scripts for command in (_split_sed(script) or [None])]
    if not commands or None in commands:
        return None
    try:
        compiled = [(line, re.compile(_python_regex(regex, extended)) if regex else None, command,
                     (re.compile(_python_regex(parts[0], extended), re.IGNORECASE if "I" in parts[2] or
                                 "i" in parts[2] else 0), _replacement(parts[1]), "g" in parts[2])
                     if command == "s" else parts[0])
                    for line, regex, command, parts in commands]  # type: ignore[misc]
    except re.error:
        return None
    lines = text.splitlines()
    out = []
    for number, content in enumerate(lines, 1):
        before, after = [], []
        for line, regex, command, argument in compiled:
            if (line and line != str(number) and not (line == "$" and number == len(lines))) or \
                    (regex and not regex.search(content)):
                continue
            if command == "s":
                pattern, expand, every = argument
                content = pattern.sub(expand, content, count=0 if every else 1)
            elif command == "i":
                before.append(argument)
            elif command == "a":
                after.append(argument)
            else:
                content = argument
        out += [*before, content, *after]
    return "\n".join(out) + ("\n" if text.endswith("\n") or not text else "")


def sed_additions(scripts: tuple[str, ...]) -> str:
    """The text sed scripts put in a file, read without the file: each replacement (its group
    references dropped) and each appended or inserted line."""
    found = []
    for script in scripts:
        for _, _, command, parts in _split_sed(script) or []:
            found.append(re.sub(r"\\\d|&", "", parts[1]) if command == "s" else parts[0])
    return "".join(f"{line}\n" for line in found)
