"""The ecosystem registry is the one source: every ecosystem a name may be recorded in is
registered with the module that describes it, every file pattern a module declares reaches the
readers (the editor's dispatch, the history miner's git pathspecs), and no list of ecosystems is
kept anywhere else."""

from __future__ import annotations

import ast
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import get_args

from cenotaph.lsp import settings
from cenotaph.memory.mining import git as mine_git
from cenotaph.nlp import ecosystems
from cenotaph.nlp.detect import detect

PACKAGE = Path(ecosystems.__file__).parent
SERVER = PACKAGE.parents[1]


def sample(pattern: str) -> str:
    """A file name a glob matches."""
    return pattern.replace("?", "a").replace("*", "x").replace("[", "").replace("]", "")


def test_every_ecosystem_is_registered_with_the_module_that_describes_it() -> None:
    for name, module in ecosystems.MODULES.items():
        assert ecosystems.get(name).name == name
        if module is not None:
            assert name in [e.name for e in importlib.import_module(f"{ecosystems.__name__}.{module}").ECOSYSTEMS]
    assert ecosystems.get("cobol").name == ecosystems.ANY  # the control: an unknown name is not one of them
    # What the modules find and install is recorded in a registered ecosystem.
    emitted = {installer.ecosystem for installer in (*ecosystems.system_installers(), *ecosystems.project_installers())}
    texts = {"python": "import yaml\n", "javascript": "import x from 'left-pad'\n", "go": 'import "github.com/a/b"\n',
             "rust": "use serde::Serialize;\n", "requirements": "requests\n",
             "pyproject": '[project]\ndependencies = ["httpx"]\n', "package_json": '{"dependencies": {"react": "1"}}',
             "cargo_toml": '[dependencies]\nserde = "1"\n', "go_mod": "require github.com/a/b v1.0.0\n",
             "setup_py": "setup(install_requires=['six'])\n", "setup_cfg": "[options]\ninstall_requires = six\n",
             "tox_ini": "[testenv]\ndeps = pytest\n", "pipfile": "[packages]\nflask = \"*\"\n",
                 "environment_yml": "dependencies:\n  - numpy\n  - pip:\n    - httpx\n", "pre_commit": "repos:\n- repo: https://github.com/psf/black\n",
             "dockerfile": "FROM python\nRUN apt-get install -y curl && apk add git && conda install numpy\n",
             "markdown": "we use `yaml`\n", "restructuredtext": "we use ``yaml``\n",
             "plaintext": "pip install yaml\n", "instructions": "use yaml\n"}
    for document in ecosystems.documents():
        found = detect(sample(document.patterns[0]), texts[document.kind], frozenset({"yaml"}))
        assert found, document.kind
        emitted.update(mention.ecosystem for mention in found)
    assert emitted <= set(ecosystems.NAMES)
    assert {"pypi", "npm", "cargo", "go", "container", "apt", "apk", "conda", "other"} <= emitted


def test_every_file_pattern_reaches_the_editor_and_the_history_miner(tmp_path: Path) -> None:
    manifests = []
    for document in ecosystems.documents():
        for pattern in document.patterns:
            path = f"sub/{sample(pattern)}"
            assert ecosystems.document_kind(path) == document.kind, pattern
            assert ecosystems.document_kind(path.upper()) == document.kind, pattern  # names are matched in any case
            assert mine_git.is_manifest(path) == document.manifest, pattern
            if document.manifest:
                manifests.append(path)
    assert set(ecosystems.root_manifest_kinds()) == {d.kind for d in ecosystems.documents() if d.at_root}
    # git's own matching of the miner's pathspecs lists the same files, and not the others.
    others = ["sub/notes.txt", "sub/app.py", "node_modules/x/package.json"]
    for path in [*manifests, *others]:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x\n")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "add", "."], check=True)
    listed = subprocess.run(["git", "-C", str(tmp_path), "ls-files", "--", *mine_git.pathspecs()], check=True,
                            capture_output=True, text=True).stdout.split()
    assert sorted(listed) == sorted(manifests)


def test_the_modules_a_question_imports_are_told_as_the_modules_describe_them() -> None:
    # PROGRAMS, FILES and ALIASED say which modules a command line, a file or a name needs without
    # importing the others: they must say what the modules themselves declare.
    for module in dict.fromkeys(m for m in ecosystems.MODULES.values() if m):
        described = importlib.import_module(f"{ecosystems.__name__}.{module}").ECOSYSTEMS
        assert sorted(ecosystems.FILES.get(module, ())) == sorted(p for e in described for d in e.documents
                                                                    for p in d.patterns), module
        programs = [spec.split()[0] for e in described for i in (*e.project_installers, *e.system_installers)
                    for spec in i.programs]
        # Each program's name (a pattern such as `pip[\d.]*`) holds one of the module's words before
        # any pattern's sign: a line it runs in holds that word.
        literal = [re.split(r"[\\\[\](){}?*+.|^$]", p)[0] for p in programs]
        assert all(any(w in p for w in ecosystems.PROGRAMS[module]) for p in literal), (module, literal)
        assert (module in ecosystems.PROGRAMS) == bool(programs), module
        assert (module in ecosystems.ALIASED) == any(e.aliases for e in described), module
    assert ecosystems.PROGRAMS and ecosystems.FILES and ecosystems.ALIASED  # the control: not vacuous


def test_a_question_about_one_line_or_file_imports_only_the_modules_that_answer_it() -> None:
    # What an agent's hook asks on every tool call; in a fresh interpreter, whose imports are its own.
    script = """
import sys
from cenotaph.nlp import ecosystems
def loaded():
    return sorted(m.rsplit(".", 1)[1] for m in sys.modules if m.startswith("cenotaph.nlp.ecosystems.")
                  and m.rsplit(".", 1)[1] in ecosystems.FILES)
found = []
assert ecosystems.installers_in("git status") == ()
found.append(loaded())
assert {i.ecosystem for i in ecosystems.installers_in("pip install requests")} == {"pypi"}
assert ecosystems.normalize("Requests", "pypi") == "requests" and "yaml" in ecosystems.aliases_for("pyyaml")
found.append(loaded())
assert ecosystems.document_kind("app/Cargo.toml") == "cargo_toml" and ecosystems.document_for("data/table.csv") is None
found.append(loaded())
assert ecosystems.document_kind("docs/notes.md") == "markdown"
found.append(loaded())
ecosystems.load()
found.append(loaded())
print(found)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    modules = sorted(ecosystems.FILES)
    assert ast.literal_eval(done.stdout) == [[], ["python"],
                                             ["cargo", "python"], ["cargo", "prose", "python"], modules]


def test_the_editor_settings_offer_every_document_kind() -> None:
    # A contract with the editors (shared_schema/settings.schema.json): it lists the registry's kinds.
    assert set(get_args(settings.FileKind)) == {document.kind for document in ecosystems.documents()}


def _ecosystem_lists(tree: ast.AST) -> list[int]:
    """The lines of the tuples (a Literal's among them), lists, sets and dicts naming three ecosystems or more."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items = node.elts
        elif isinstance(node, ast.Dict):
            items = [key for key in node.keys if key is not None]
        else:
            continue
        named = {item.value for item in items if isinstance(item, ast.Constant)} & set(ecosystems.NAMES)
        if len(named) >= 3:
            found.append(node.lineno)
    return found


def test_no_list_of_ecosystems_is_kept_outside_the_registry() -> None:
    assert _ecosystem_lists(ast.parse((PACKAGE / "__init__.py").read_text()))  # the control: the registry's is found
    elsewhere = {str(path.relative_to(SERVER)): lines for path in SERVER.rglob("*.py")
                 if PACKAGE not in path.parents and (lines := _ecosystem_lists(ast.parse(path.read_text())))}
    assert elsewhere == {}


def test_the_team_folder_schema_names_every_ecosystem() -> None:
    # A contract with the files a team commits (shared_schema/shared-approach.schema.json): an
    # approach recorded in any registered ecosystem validates.
    schema = json.loads((SERVER.parents[1] / "shared_schema" / "shared-approach.schema.json").read_text())
    assert schema["properties"]["ecosystem"]["enum"] == list(ecosystems.NAMES)


def _asked(_: object = None) -> tuple:
    raise LookupError("the scanner asked for the installers")


def test_only_the_scanners_that_read_commands_ask_for_the_installers():
    """Finding the installers searches the whole text: a requirements file's scan never asks for
    them; a Dockerfile's and a README's do (the control), and find the command with them."""
    from cenotaph.nlp.ecosystems.base import Context

    vocabulary = frozenset({"flask"})  # what the README's prose is matched against
    requirements = ecosystems.document_for("requirements.txt")
    assert list(requirements.scan("flask==3.0\nrequests\n", Context(vocabulary, installers=_asked)))
    for path, text in (("Dockerfile", "FROM python:3.12\nRUN pip install flask\n"),
                       ("README.md", "Set up:\n\n    pip install flask\n")):
        document = ecosystems.document_for(path)
        try:
            list(document.scan(text, Context(vocabulary, installers=_asked)))
        except LookupError:
            pass
        else:
            raise AssertionError(f"{path}: the scan never asked for the installers")
        assert "flask" in {m.name for m in detect(path, text, vocabulary)}
