"""Conda packages: an ecosystem of their own (as apt's are), matched by their folded name
(conda-forge's `numpy` is PyPI's), installed by conda, mamba and micromamba in a Dockerfile."""

from __future__ import annotations

import dataclasses
import re

from cenotaph.nlp.ecosystems.base import Ecosystem, Installer, name_rule
from cenotaph.nlp.ecosystems.shell import pattern_span

# A match spec may name its channel (`conda-forge::numpy`) and carry a version or build
# (`numpy=1.26`, `'numpy>=1'`, `numpy[build=py311*]`).
_SPEC = r"(?:[\w./:-]+::)?(?P<name>[A-Za-z0-9_][\w.+-]*+)(?=[=<>!~\[ ]|\Z)"
_CONDA = Installer(
    "conda",
    ("conda", "mamba"),
    frozenset({"install", "create"}),
    frozenset(
        "-c --channel -n --name -p --prefix --file --solver --repodata-fn --subdir --platform "
        "--experimental --strict-channel-priority-level".split()
    ),
    pattern_span(_SPEC),
)
# micromamba reads an environment file with `-f` (conda's old `--force`), and takes its root.
_MICROMAMBA = dataclasses.replace(
    _CONDA, programs=("micromamba",), options_with_argument=_CONDA.options_with_argument | {"-f", "-r", "--root-prefix"}
)

ECOSYSTEMS = (
    Ecosystem("conda", system_installers=(_CONDA, _MICROMAMBA),
              name_problem=name_rule(r"[a-z0-9_][a-z0-9_.+-]*", "conda", "letters, digits and _ . + -",
                                     versions=r"==?|[<>]=?|!=|~=|\[", flags=re.IGNORECASE | re.ASCII)),
)
