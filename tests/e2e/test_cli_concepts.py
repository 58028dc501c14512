"""The concepts Done-when (issue 19) through the real `cenotaph` command: after memories that say
"pg", "postgres" and "PostgreSQL", a merge outlives `concepts rebuild`, and `recall "pg connection
pool"` finds the PostgreSQL memories, which it did not before the merge."""

from __future__ import annotations

import json

from cenotaph.memory.operations.importing import ImportItem

from tests.conftest import HUMAN, cli_memory
from tests.e2e.test_cli import run
from tests.memory.test_concepts import OTHERS, POSTGRES


def recalled(env) -> set[str]:
    out = json.loads(run(env, "recall", "pg connection pool", "-k", "4", "--project", "p", "--json").stdout)
    return {r["content"] for r in out["results"]}


def test_done_when_a_merge_outlives_rebuild_and_recall_follows_it(cli_env, embedder, analyzer):
    with cli_memory(cli_env, embedder, analyzer) as memory:  # the memories are the setting, not the test
        assert memory.remember(HUMAN, POSTGRES[0], project="p").stored
        report = memory.import_memories(HUMAN, [ImportItem(t) for t in POSTGRES[1:] + OTHERS], project="p")
        assert report.imported == len(POSTGRES[1:] + OTHERS)
    # Before the merge, the memories that say "PostgreSQL" and "postgres" are not found.
    assert not recalled(cli_env) & set(POSTGRES[:2])

    assert run(cli_env, "concepts", "merge", "pg", "postgresql", "--project", "p").stdout.strip() == \
        "pg is now an alias of postgresql"
    run(cli_env, "concepts", "merge", "postgres", "PostgreSQL", "--project", "p")
    run(cli_env, "concepts", "rebuild", "--project", "p")
    listed = {c["name"]: c for c in json.loads(run(cli_env, "concepts", "--project", "p", "--json").stdout)["concepts"]}
    assert listed["postgresql"]["aliases"] == ["pg", "postgres"] and listed["postgresql"]["count"] == 3
    assert listed["pool"]["count"] == 4 and listed["pool"]["neighbours"][0] == {"name": "connection", "count": 3}
    assert "pg" not in listed
    assert set(POSTGRES) <= recalled(cli_env)

    related = json.loads(run(cli_env, "related", "3", "--project", "p", "--json").stdout)["related"]
    assert {r["memory"]["content"] for r in related if "postgresql" in r["shared"]} == set(POSTGRES[:2])
    proc = run(cli_env, "concepts", "merge", "pg", "--project", "p", "--json", check=False)
    assert proc.returncode == 2 and json.loads(proc.stdout)["error"]["field"] == "names"
