"""The compiled lint rules, run by the real linters: ruff (PyPI) and ESLint and Biome (npm, pinned in
tests/tools/node, installed by `make test-tools`). Each flags an import of an abandoned library,
and stops once the library is reinstated and the rules compiled again."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import HUMAN, REPO

P = "github.com/acme/app"
NODE_BIN = REPO / "tests" / "tools" / "node" / "node_modules" / ".bin"
RUFF = str(Path(sys.executable).with_name("ruff"))


def _tool(name: str) -> str:
    path = NODE_BIN / name
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make test-tools` (npm ci in tests/tools/node)")
    return str(path)


def _lint(*command: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120)


def _compile_and_accept(memory, target: str, root: Path) -> None:
    proposal = memory.compile(HUMAN, target, project=P, root=root).proposal
    assert proposal is not None
    memory.accept_proposal(HUMAN, proposal.id)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


def test_ruff_flags_an_abandoned_module_until_it_is_reinstated(memory, repo):
    pyproject = '# the project\n[project]\nname = "app"  # keep\n\n[tool.ruff]\nline-length = 100\n'
    (repo / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    (repo / "fetch.py").write_text("import requests\n\nprint(requests)\n", encoding="utf-8")
    (repo / "clean.py").write_text("import json\n\nprint(json)\n", encoding="utf-8")
    memory.abandon(HUMAN, "requests", reason="blocking calls stalled the event loop", project=P, effort=4)
    _compile_and_accept(memory, "ruff", repo)
    assert (repo / "pyproject.toml").read_text(encoding="utf-8").startswith(pyproject)

    flagged = _lint(RUFF, "check", "--no-cache", "--output-format", "concise", ".", cwd=repo)
    assert flagged.returncode == 1, flagged.stdout + flagged.stderr
    assert "fetch.py:1:8: TID251 `requests` is banned: cenotaph: requests was abandoned: blocking calls" \
        in flagged.stdout
    assert "clean.py" not in flagged.stdout  # positive control: an allowed import passes

    memory.reinstate_approach(HUMAN, "requests", reason="the sync CLI needs it", project=P)
    _compile_and_accept(memory, "ruff", repo)
    passed = _lint(RUFF, "check", "--no-cache", ".", cwd=repo)
    assert passed.returncode == 0, passed.stdout + passed.stderr


def test_eslint_flags_an_abandoned_package_until_it_is_reinstated(memory, repo):
    (repo / "package.json").write_text('{"type": "module"}\n', encoding="utf-8")
    (repo / "eslint.config.js").write_text('export default [\n  { rules: { semi: "error" } },\n];\n', encoding="utf-8")
    (repo / "app.js").write_text('import moment from "moment";\nimport fs from "node:fs";\n'
                                 'console.log(moment, fs);\n', encoding="utf-8")
    memory.abandon(HUMAN, "moment", reason="too heavy for the bundle", project=P, effort=4, ecosystem="npm")
    memory.abandon(HUMAN, "requests", reason="blocking calls", project=P, effort=4)  # PyPI: not ESLint's
    _compile_and_accept(memory, "eslint", repo)
    assert "requests" not in (repo / "cenotaph.eslint.mjs").read_text(encoding="utf-8")

    flagged = _lint(_tool("eslint"), "app.js", cwd=repo)
    assert flagged.returncode == 1, flagged.stdout + flagged.stderr
    assert "'moment' import is restricted from being used. cenotaph: moment was abandoned: too heavy" in flagged.stdout
    assert "node:fs" not in flagged.stdout

    memory.reinstate_approach(HUMAN, "moment", reason="we need its locales after all", project=P)
    _compile_and_accept(memory, "eslint", repo)
    passed = _lint(_tool("eslint"), "app.js", cwd=repo)
    assert passed.returncode == 0, passed.stdout + passed.stderr


def test_eslint_and_biome_flag_deep_imports_of_an_abandoned_package(memory, repo):
    """A `paths` entry matches only the exact specifier: `lodash/fp` and `@acme/ui/button` are
    flagged through the compiled patterns; a package whose name only starts the same
    (`lodash-es`), a relative `./lodash/x` and a kept package's deep import pass."""
    (repo / "package.json").write_text('{"type": "module"}\n', encoding="utf-8")
    (repo / "eslint.config.js").write_text("export default [];\n", encoding="utf-8")
    (repo / "deep.js").write_text('import fp from "lodash/fp";\nimport map from "lodash/fp/map";\n'
                                  'import Button from "@acme/ui/button";\nconsole.log(fp, map, Button);\n',
                                  encoding="utf-8")
    (repo / "clean.js").write_text('import es from "lodash-es";\nimport local from "./lodash/x.js";\n'
                                   'import locale from "dayjs/locale/de";\nconsole.log(es, local, locale);\n',
                                   encoding="utf-8")
    memory.abandon(HUMAN, "lodash", reason="the platform has it", project=P, effort=4, ecosystem="npm")
    memory.abandon(HUMAN, "@acme/ui", reason="the design system replaced it", project=P, effort=4)
    for target in ("eslint", "biome"):
        _compile_and_accept(memory, target, repo)

    flagged = _lint(_tool("eslint"), "deep.js", cwd=repo)
    assert flagged.returncode == 1, flagged.stdout + flagged.stderr
    for line, specifier, reason in ((1, "lodash/fp", "the platform has it"), (2, "lodash/fp/map", "the platform has it"),
                                    (3, "@acme/ui/button", "the design system replaced it")):
        assert re.search(rf"^\s+{line}:\d+\s+error\s+'{re.escape(specifier)}' import is restricted from being used by a "
                         rf"pattern\. cenotaph: .* was abandoned: {reason}", flagged.stdout, re.M), flagged.stdout
    passed = _lint(_tool("eslint"), "clean.js", cwd=repo)  # positive control: look-alikes pass
    assert passed.returncode == 0, passed.stdout + passed.stderr

    flagged = _lint(_tool("biome"), "lint", "deep.js", cwd=repo)
    assert flagged.returncode == 1, flagged.stdout + flagged.stderr
    assert (flagged.stdout + flagged.stderr).count("lint/style/noRestrictedImports") == 3
    passed = _lint(_tool("biome"), "lint", "clean.js", cwd=repo)
    assert passed.returncode == 0, passed.stdout + passed.stderr


def test_biome_flags_an_abandoned_package(memory, repo):
    (repo / "app.js").write_text('import moment from "moment";\n\nconsole.log(moment);\n', encoding="utf-8")
    (repo / "clean.js").write_text('import fs from "node:fs";\n\nconsole.log(fs);\n', encoding="utf-8")
    memory.abandon(HUMAN, "moment", reason="too heavy for the bundle", project=P, effort=4, ecosystem="npm")
    _compile_and_accept(memory, "biome", repo)
    flagged = _lint(_tool("biome"), "lint", "app.js", cwd=repo)
    assert flagged.returncode == 1, flagged.stdout + flagged.stderr
    output = flagged.stdout + flagged.stderr
    assert "lint/style/noRestrictedImports" in output
    assert "cenotaph: moment was abandoned: too heavy for the bundle" in output
    passed = _lint(_tool("biome"), "lint", "clean.js", cwd=repo)  # positive control: an allowed import passes
    assert passed.returncode == 0, passed.stdout + passed.stderr
