"""Containers: the images a Dockerfile (or Containerfile) builds from and copies from, the packages
its RUN instructions install (apt and apk packages are ecosystems of their own; pip, npm and
conda installs belong to theirs), and image references without tag or digest."""

from __future__ import annotations

import re
from collections.abc import Iterator

from cenotaph.nlp.ecosystems.base import Context, Document, Ecosystem, Hit, Installer, lines, name_rule
from cenotaph.nlp.ecosystems.shell import SHELL_OPERATOR, SHELL_TOKEN, Word, package_words, pattern_span
from cenotaph.nlp.names import fold

# ---------------------------------------------------------------------------------------------
# Dockerfile

_DOCKER_DIRECTIVE = re.compile(r"#\s*(?P<name>\w+)\s*=\s*(?P<value>\S*)\s*\Z")
_DOCKER_WORD = re.compile(r"\S+")


def _image_name_length(reference: str) -> int:
    """Length of an image reference without its `:tag` and `@digest` (a registry port stays)."""
    name = reference.split("@", 1)[0]
    colon = name.rfind(":")
    return colon if colon > name.rfind("/") else len(name)


def _install_hits(command: list[Word], installers: tuple[Installer, ...]) -> Iterator[Hit]:
    found = package_words(command, installers)
    if found is None or found[1]:
        return
    installer, _, packages = found
    for word, (start, end) in packages:
        yield Hit(word.start + start, word.start + end, installer.ecosystem, "declaration")


def _run_hits(pieces: list[tuple[int, str]], installers: tuple[Installer, ...]) -> Iterator[Hit]:
    words: list[Word] = []
    for offset, content in pieces:
        for token in SHELL_TOKEN.finditer(content):
            if token.group().startswith("#"):
                break  # a shell comment runs to the end of the physical line
            words.append(Word(token.group(), offset + token.start()))
    words = words[1 + next(i for i, word in enumerate(words) if word.text.upper() == "RUN") :]
    while words and words[0].text.startswith("--"):
        words = words[1:]  # --mount=…, --network=…
    if words and words[0].text.startswith("["):
        return  # exec form: a JSON array, not a shell command
    command: list[Word] = []
    for word in [*words, Word(";", -1)]:
        if SHELL_OPERATOR.fullmatch(word.text):
            yield from _install_hits(command, installers)
            command = []
        else:
            command.append(word)


# [registry[:port]/]path/components; `${VAR}` references and other oddities do not match.
_IMAGE_NAME = re.compile(r"\w[\w.-]*(?::\d+)?(?:/\w[\w.-]*)*")


def _image_hit(word: Word, stages: set[str]) -> Hit | None:
    length = _image_name_length(word.text)
    name = word.text[:length].lower()
    if not _IMAGE_NAME.fullmatch(name) or name == "scratch" or word.text.lower() in stages:
        return None
    return Hit(word.start, word.start + length, "container", "declaration")


def _instruction_hits(pieces: list[tuple[int, str]], stages: set[str], installers: tuple[Installer, ...],
                      ) -> Iterator[Hit]:
    words = [
        Word(word.group(), offset + word.start())
        for offset, content in pieces
        for word in _DOCKER_WORD.finditer(content)
    ]
    if words and words[0].text.upper() == "ONBUILD":
        words = words[1:]
    if not words:
        return
    instruction = words[0].text.upper()
    if instruction == "FROM":
        arguments = [word for word in words[1:] if not word.text.startswith("--")]  # --platform=…
        if arguments and (hit := _image_hit(arguments[0], stages)):
            yield hit
        if len(arguments) >= 3 and arguments[1].text.lower() == "as":
            stages.add(arguments[2].text.lower())
    elif instruction in ("COPY", "ADD"):
        for word in words[1:]:
            if word.text.lower().startswith("--from="):
                source = Word(word.text[7:], word.start + 7)
                if not source.text.isdigit() and (hit := _image_hit(source, stages)):
                    yield hit
    elif instruction == "RUN":
        yield from _run_hits(pieces, installers)


def _dockerfile_hits(text: str, context: Context) -> Iterator[Hit]:
    escape = "\\"
    reading_directives = True  # parser directives are only honoured before anything else
    stages: set[str] = set()  # `FROM … AS name` stages, which later FROM/COPY may refer to
    pieces: list[tuple[int, str]] = []  # physical lines of the instruction being read
    for offset, line in lines(text):
        stripped = line.strip()
        if reading_directives:
            directive = _DOCKER_DIRECTIVE.match(stripped)
            if directive:
                if directive["name"].lower() == "escape" and directive["value"] in ("\\", "`"):
                    escape = directive["value"]
                continue
            reading_directives = False
        if not stripped or stripped.startswith("#"):
            continue  # comment and blank lines are dropped, even inside a continued instruction
        content = line.rstrip()
        continues = content.endswith(escape)
        pieces.append((offset, content[:-1] if continues else content))
        if not continues:
            yield from _instruction_hits(pieces, stages, context.installers())
            pieces = []
    if pieces:
        yield from _instruction_hits(pieces, stages, context.installers())


# ---------------------------------------------------------------------------------------------
# apt and apk

_APT = Installer(
    "apt",
    ("apt-get", "apt", "aptitude"),
    frozenset({"install"}),
    frozenset({"-o", "-t", "-c", "--option", "--target-release", "--config-file"}),
    pattern_span(r"[a-z0-9][a-z0-9+.-]*+(?=[=/:]|\Z)"),
    # Debian packages a Python library `foo` as `python3-foo`.
    same_as=lambda name: ("pypi", name.removeprefix("python3-")) if name.startswith("python3-") else None,
)
_APK = Installer(
    "apk",
    ("apk",),
    frozenset({"add"}),
    frozenset(
        "-t --virtual -X --repository -p --root --repositories-file --keys-dir --arch "
        "--cache-dir".split()
    ),
    pattern_span(r"[A-Za-z0-9][\w+.-]*+(?=[=<>~@]|\Z)"),
)


# ---------------------------------------------------------------------------------------------
# Names

# The distribution spec's reference grammar (a registry, path components, a tag, a digest).
_IMAGE_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_IMAGE_DOMAIN = r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*(?::[0-9]+)?"
_IMAGE_REFERENCE = (rf"(?:{_IMAGE_DOMAIN}/)?{_IMAGE_COMPONENT}(?:/{_IMAGE_COMPONENT})*(?::\w[\w.-]{{0,127}})?"
                    r"(?:@[a-z][a-z0-9]*(?:[-_+.][a-z][a-z0-9]*)*:[0-9a-f]{32,})?")


# A registry path with a tag or a digest (`ghcr.io/acme/tool:v1`) can only be an image.
_SPELLED_IMAGE = re.compile(rf"^{_IMAGE_DOMAIN}/{_IMAGE_COMPONENT}(?:/{_IMAGE_COMPONENT})*(?=[^/]*[:@][^/]*$)"
                            r"(?::\w[\w.-]{0,127})?(?:@[a-z0-9]+:[0-9a-f]{32,})?$", re.IGNORECASE | re.ASCII)


def _image_name(reference: str) -> str:
    """`docker.io/library/python:3.12-alpine@sha256:…` → `python`; keeps a registry or owner
    that is not Docker Hub's implicit one (`ghcr.io/acme/tool`)."""
    ref = reference.strip().split("@", 1)[0]
    last_slash = ref.rfind("/")
    colon = ref.rfind(":")
    if colon > last_slash:
        ref = ref[:colon]
    for prefix in ("docker.io/library/", "index.docker.io/library/", "library/", "docker.io/"):
        if ref.startswith(prefix):
            ref = ref[len(prefix):]
            break
    return ref.lower()


# ---------------------------------------------------------------------------------------------

ECOSYSTEMS = (
    Ecosystem(
        "container",
        documents=(
            Document("dockerfile", ("dockerfile", "dockerfile.*", "*.dockerfile", "containerfile", "containerfile.*"),
                     _dockerfile_hits, manifest=True),
        ),
        normalize=_image_name,
        name_problem=name_rule(_IMAGE_REFERENCE, "image", "[registry[:port]/]path[:tag][@digest], path parts of "
                               "letters and digits joined by . _ __ or -", flags=re.IGNORECASE | re.ASCII,
                               max_length=500),
        other_keys=lambda name: (fold(_image_name(name)),),
        spelled=lambda name: _SPELLED_IMAGE.match(name) is not None,
        siblings=("apt", "apk"),
    ),
    Ecosystem("apt", system_installers=(_APT,), siblings=("apk", "container"),
              name_problem=name_rule(r"[a-z0-9][a-z0-9+.-]+", "apt", "two or more of letters, digits and + . - "
                                     "(Debian policy)", versions=r"[=<>]", flags=re.IGNORECASE | re.ASCII)),
    Ecosystem("apk", system_installers=(_APK,), siblings=("apt", "container"),
              name_problem=name_rule(r"[a-z0-9][a-z0-9+._-]*", "apk", "letters, digits and + . _ -",
                                     versions=r"[=<>~]", flags=re.IGNORECASE | re.ASCII)),
)
