"""Issue 38, point 6: an import name and its distribution are one graveyard entry. For the 200
most downloaded PyPI distributions whose import name is another name (tests/data), abandoning by
either name gives the same entry, which flags the import line and the requirements line, answers
`check` for both names, and compiles to a ruff rule that the real ruff fires on the import."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cenotaph.memory.models import Actor
from cenotaph.memory.policy.compile import ruff
from cenotaph.memory.policy.lessons import Lesson
from cenotaph.nlp.detect import detect

PERSON = Actor(name="cli", kind="human")
PROJECT = "p"
RUFF = str(Path(sys.executable).with_name("ruff"))
ROWS = [tuple(line.split("\t")[1:]) for line in
        (Path(__file__).parent.parent / "data" / "pypi_import_names_top200.tsv").read_text().splitlines()[3:]]


def test_the_list_is_the_200_distributions():
    assert len(ROWS) == 200 and len({d for d, _ in ROWS}) == 200
    assert {("beautifulsoup4", "bs4"), ("pillow", "PIL"), ("scikit-learn", "sklearn"), ("pyyaml", "yaml"),
            ("python-dateutil", "dateutil"), ("markdown-it-py", "markdown_it")} <= set(ROWS)


def test_either_name_is_one_entry_that_flags_imports_and_requirements_and_ruff_fires(memory, tmp_path):
    repo = tmp_path / "service"
    repo.mkdir()
    requirements = "".join(f"{distribution}\n" for distribution, _ in ROWS)
    (repo / "requirements.txt").write_text(requirements, encoding="utf-8")
    imports = "".join(f"import {module}\n" for _, module in ROWS)
    graveyard = memory.graveyard
    for index, (distribution, module) in enumerate(ROWS):
        by_import = graveyard.plan(module, reason="dropped", project=PROJECT, workspace=repo)
        by_distribution = graveyard.plan(distribution, reason="dropped", project=PROJECT, workspace=repo)
        assert (by_import.key, by_import.ecosystem) == (by_distribution.key, by_distribution.ecosystem) == (
            by_distribution.key, "pypi"), distribution
        assert by_import.decided_by == "requirements.txt declares it"
        # Half abandoned by their import name, half by their distribution's.
        graveyard.record(PERSON, by_import if index % 2 else by_distribution)
    approaches = memory.graveyard.in_scope(PROJECT)
    assert len(approaches) == 200  # one entry each

    flagged = {(m.kind, m.name) for m in [*detect("app.py", imports), *detect("requirements.txt", requirements)]
               if graveyard.check([m.key], PROJECT, ecosystem=m.ecosystem)[0].status == "abandoned"}
    assert {(kind, name) for kind, name in flagged} == {("import", m) for _, m in ROWS} | \
        {("declaration", d) for d, _ in ROWS}
    checks = graveyard.check([name for row in ROWS for name in row], PROJECT)
    assert [c.name for c in checks if c.status != "abandoned"] == []

    lessons = [Lesson(key=f"dont:{a.name}", kind="dont", text=a.reason, sources=[], reinforced=True,
                      reinforced_by=["effort"], approach=a) for a in approaches]
    (repo / "ruff.toml").write_text(ruff.render("ruff.toml", None, lessons).draft, encoding="utf-8")
    banned = {module for lesson in lessons for module in ruff.import_names(lesson)}
    assert not {f"{m}_py" for _, m in ROWS} & banned  # no module that does not exist (markdown_it_py)
    (repo / "app.py").write_text(imports, encoding="utf-8")
    found = subprocess.run([RUFF, "check", "--no-cache", "--output-format", "json", "app.py"], cwd=repo,
                           capture_output=True, text=True, timeout=60)
    fired = {(d["code"], d["location"]["row"]) for d in json.loads(found.stdout) if d["code"].startswith("TID")}
    assert fired == {("TID251", row) for row in range(1, 201)}
