"""Mining agent transcripts: fixtures written in Claude Code's and Codex's formats, each exclusion
beside a positive control in the same file."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from cenotaph.memory.mining import transcripts as mine_transcripts
from cenotaph.memory.mining.transcripts import Vocabulary, read_said
from cenotaph.nlp.detect import package_commands
from cenotaph.store.dialect import is_postgres

from tests.conftest import CENOTAPH, HUMAN

PROJECT = "acme/app"
REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file "
            "edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\n")
# Claude Code 2.1 (the person typed a reason into the permission prompt); two spaces, as written.
REJECTED_21 = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file "
               "edit, the new_string was NOT written to the file). The user provided the following reason for the "
               "rejection:  ")


def slug(path: Path) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", str(path))


class Claude:
    """A Claude Code session file, one record a line."""

    def __init__(self, path: Path, session: str, cwd: Path) -> None:
        self.path, self.session, self.cwd, self.n = path, session, str(cwd), 0
        path.parent.mkdir(parents=True, exist_ok=True)

    def record(self, kind: str, content, *, cwd: str | None = None, **extra) -> dict:
        self.n += 1
        record = {"type": kind, "uuid": f"u{self.n}", "sessionId": self.session,
                  "timestamp": f"2026-03-02T10:{self.n:02d}:00.000Z", "cwd": cwd or self.cwd, "userType": "external",
                  "message": {"role": kind, "content": content}, **extra}
        self.raw(json.dumps(record))
        return record

    def raw(self, text: str) -> None:
        with self.path.open("a", encoding="utf-8") as f:
            f.write(text + "\n")

    def call(self, call_id: str, command: str, **extra) -> None:
        self.record("assistant", [{"type": "text", "text": "Let me run it."},
                                  {"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": command}}],
                    **extra)

    def result(self, call_id: str, text: str, is_error: bool = False, **extra) -> None:
        self.record("user", [{"type": "tool_result", "tool_use_id": call_id, "content": text, "is_error": is_error}],
                    **extra)

    def says(self, text: str, **extra) -> None:
        self.record("user", text, **extra)


class Codex:
    def __init__(self, path: Path, session: str, cwd: Path) -> None:
        self.path, self.n = path, 0
        path.parent.mkdir(parents=True, exist_ok=True)
        self.line("session_meta", {"id": session, "cwd": str(cwd), "originator": "codex_cli_rs"})

    def line(self, kind: str, payload: dict) -> None:
        self.n += 1
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps({"timestamp": f"2026-03-05T09:{self.n:02d}:00.000Z", "type": kind,
                                "payload": payload}) + "\n")

    def call(self, call_id: str, script: str) -> None:
        self.line("response_item", {"type": "function_call", "name": "shell", "call_id": call_id,
                                    "arguments": json.dumps({"command": ["bash", "-lc", script]})})

    def output(self, call_id: str, text: str) -> None:
        self.line("response_item", {"type": "function_call_output", "call_id": call_id, "output": text})

    def says(self, text: str) -> None:
        self.line("event_msg", {"type": "user_message", "message": text})

    def says_item(self, text: str) -> None:
        """The person's words as a response item: all that older rollouts write (newer ones add the event)."""
        self.line("response_item", {"type": "message", "role": "user",
                                    "content": [{"type": "input_text", "text": text}]})

    def turn(self, cwd: Path) -> None:
        self.line("turn_context", {"cwd": str(cwd), "approval_policy": "on-request", "model": "gpt-5-codex",
                                   "summary": "auto"})


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "work" / "app"
    (root / "sub").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "app"\ndependencies = ["polars", "requests", "tqdm", '
                                         '"click", "rich", "numpy"]\n')
    (root / "package.json").write_text('{"dependencies": {"left-pad": "^1.0.0"}}\n')
    return root


def mine(memory, repo: Path, claude: Path, codex: Path):
    return memory.mine_transcripts(HUMAN, PROJECT, repo, claude_dir=claude, codex_dir=codex)


def by_name(report) -> dict:
    return {c.name: c for c in report.candidates}


def test_claude_rejections_undone_installs_and_said_with_every_exclusion(memory, repo, tmp_path):
    claude = tmp_path / "claude"
    s = Claude(claude / "projects" / slug(repo) / "s1.jsonl", "s1", repo / "sub")
    # A rejection with the person's reason, which names the replacement.
    s.call("t1", "cd .. && pip install 'pandas>=2'")
    s.result("t1", REJECTED + "no, don't add pandas, we use polars", is_error=True)
    # An install undone later in the session; beside it, one that stays.
    s.call("t2", "npm i -D left-pad@^1")
    s.result("t2", "added 1 package")
    s.call("t3", "pip install httpx")
    s.result("t3", "Successfully installed httpx-0.27.0")
    s.call("t4", "npm uninstall left-pad")
    s.result("t4", "removed 1 package")
    # Removed, then installed again: an upgrade, not an abandonment.
    s.call("t6", "pip uninstall -y black && pip install black==24.1")
    s.result("t6", "ok")
    s.call("t7", "pip install 'black==24.2'")
    s.result("t7", "ok")
    s.call("t8", "pip uninstall -y black")
    s.result("t8", "ok")
    s.call("t9", "pip install black")
    s.result("t9", "ok")
    # A removal the person rejected undoes nothing.
    s.call("t5", "pip uninstall -y httpx")
    s.result("t5", REJECTED + "keep it", is_error=True)
    # What a person said, and the same words from the harness or a sub-agent.
    s.says("don't use requests here", isMeta=True)
    s.says("don't use numpy for this", isSidechain=True)
    s.says("Summary: stop using rich", isCompactSummary=True)
    s.says("please stop using tqdm, it floods the logs")
    s.says("remove the file and the old tests")  # prose, no package
    s.raw('{"type": "user", "message": {"role": "user", "content": "stop using cli')  # corrupt
    s.says("stop using click, switch to `typer`")
    # The same file, a record from outside the repository.
    s.says("stop using rich", cwd=str(tmp_path / "elsewhere"))
    # Another project's session folder.
    other = Claude(claude / "projects" / slug(tmp_path / "work" / "other") / "s2.jsonl", "s2", tmp_path / "work" / "other")
    other.call("x1", "pip install django")
    other.result("x1", REJECTED + "no django", is_error=True)

    report = mine(memory, repo, claude, tmp_path / "no-codex")
    found = by_name(report)
    assert set(found) == {"pandas", "left-pad", "tqdm", "click"}
    pandas = found["pandas"]
    assert pandas.ecosystem == "pypi" and pandas.replacement == "polars"
    assert pandas.reason == 'rejected in a Claude Code session on 2026-03-02: "no, don\'t add pandas, we use polars"; ' \
                            'replaced by polars'
    (evidence,) = pandas.evidence
    assert (evidence.origin, evidence.role, evidence.summary) == ("claude", "rejected", "no, don't add pandas, we use polars")
    assert evidence.ref == "s1/u1/t1" and evidence.at == "2026-03-02T10:01:00.000Z" and evidence.path.endswith("s1.jsonl")
    assert found["left-pad"].ecosystem == "npm" and found["left-pad"].evidence[0].role == "undone"
    assert "npm uninstall left-pad" in found["left-pad"].reason
    assert found["tqdm"].evidence[0].role == "said" and found["click"].replacement == "typer"
    assert pandas.confidence > found["left-pad"].confidence
    assert report.corrupt_lines == 1 and report.sessions == 1 and report.files == 1 and report.missing == [
        str(tmp_path / "no-codex")]
    proposed = {p.arguments["name"] for p in report.proposals.proposed}
    assert proposed == {"pandas", "left-pad", "tqdm", "click"}
    assert {p.action for p in memory.proposals(PROJECT)} == {"abandon"}


def test_codex_rejections_take_the_next_message_as_their_reason(memory, repo, tmp_path):
    codex = tmp_path / "codex"
    day = codex / "sessions" / "2026" / "03" / "05"
    c = Codex(day / "rollout-2026-03-05T09-00-00-a.jsonl", "a", repo)
    c.call("c1", "uv add typer")
    c.output("c1", "exec command rejected by user")
    c.says("no, we use click")
    c.call("c2", "pnpm add zod")
    c.line("event_msg", {"type": "turn_aborted", "reason": "interrupted"})
    c.call("c3", "pip install rich")
    c.output("c3", json.dumps({"output": "Successfully installed rich", "metadata": {"exit_code": 0}}))
    c.call("c4", "pip uninstall -y rich")
    c.output("c4", json.dumps({"output": "Successfully uninstalled rich", "metadata": {"exit_code": 0}}))
    c.call("c5", "pip install numpy")
    c.output("c5", json.dumps({"output": "ok", "metadata": {"exit_code": 0}}))
    c.call("c6", "pip uninstall -y numpy")
    c.output("c6", json.dumps({"output": "ERROR: cannot uninstall", "metadata": {"exit_code": 1}}))  # failed
    foreign = Codex(day / "rollout-2026-03-05T10-00-00-b.jsonl", "b", tmp_path / "elsewhere")
    foreign.call("f1", "pip install scrapy")
    foreign.output("f1", "exec command rejected by user")

    report = mine(memory, repo, tmp_path / "no-claude", codex)
    found = by_name(report)
    assert set(found) == {"typer", "zod", "rich"}
    assert found["typer"].reason == 'rejected in a Codex session on 2026-03-05: "no, we use click"; replaced by click'
    assert found["typer"].evidence[0].ref == "a/c1" and found["typer"].evidence[0].origin == "codex"
    assert found["zod"].evidence[0].role == "rejected" and found["rich"].evidence[0].role == "undone"
    assert report.files == 2 and report.sessions == 1
    # Both grow; only this project's new lines are read for candidates.
    foreign.call("f2", "pip install flask")
    foreign.output("f2", "exec command rejected by user")
    c.call("c7", "npm i left-pad")
    c.output("c7", "exec command rejected by user")
    again = mine(memory, repo, tmp_path / "no-claude", codex)
    assert {x.name for x in again.candidates} == {"left-pad"}


def test_a_rerun_reads_only_new_lines_and_a_rewritten_file_again(memory, repo, tmp_path):
    claude = tmp_path / "claude"
    s = Claude(claude / "projects" / slug(repo) / "s1.jsonl", "s1", repo)
    s.call("t1", "pip install httpx")
    s.result("t1", "Successfully installed httpx")
    first = mine(memory, repo, claude, tmp_path / "none")
    assert first.candidates == [] and first.lines == 2 and first.bytes == s.path.stat().st_size

    size = s.path.stat().st_size
    s.call("t2", "pip uninstall -y httpx")  # undoes the install the first run read
    s.result("t2", "Successfully uninstalled httpx")
    second = mine(memory, repo, claude, tmp_path / "none")
    assert second.lines == 2 and second.bytes == s.path.stat().st_size - size
    assert [c.name for c in second.candidates] == ["httpx"] and second.candidates[0].evidence[0].role == "undone"

    third = mine(memory, repo, claude, tmp_path / "none")
    assert (third.bytes, third.lines, third.files_read, third.candidates) == (0, 0, 0, [])

    text = s.path.read_text()
    s.path.write_text(text.replace("httpx", "attrs"))  # rewritten, the same length
    s.says("stop using `attrs`")
    fourth = mine(memory, repo, claude, tmp_path / "none")
    assert fourth.files_reread == 1 and fourth.lines == 5 and fourth.bytes == s.path.stat().st_size
    assert {c.name for c in fourth.candidates} == {"attrs"}


def test_over_long_lines_are_skipped_and_counted(memory, repo, tmp_path, monkeypatch):
    monkeypatch.setattr(mine_transcripts, "MAX_LINE", 2000)
    monkeypatch.setattr(mine_transcripts, "CHUNK", 512)  # the long line spans several reads
    claude = tmp_path / "claude"
    s = Claude(claude / "projects" / slug(repo) / "s1.jsonl", "s1", repo)
    s.says("stop using tqdm " + "x" * 5000)
    s.says("stop using click")
    report = mine(memory, repo, claude, tmp_path / "none")
    assert report.long_lines == 1 and report.lines == 1
    assert [c.name for c in report.candidates] == ["click"]


def test_a_partly_written_last_line_waits_for_its_end(memory, repo, tmp_path):
    claude = tmp_path / "claude"
    s = Claude(claude / "projects" / slug(repo) / "s1.jsonl", "s1", repo)
    s.says("stop using tqdm")
    line = json.dumps({"type": "user", "uuid": "late", "sessionId": "s1", "timestamp": "2026-03-03T00:00:00Z",
                       "cwd": str(repo), "message": {"role": "user", "content": "stop using click"}})
    with s.path.open("a") as f:
        f.write(line[:30])
    first = mine(memory, repo, claude, tmp_path / "none")
    assert [c.name for c in first.candidates] == ["tqdm"] and first.corrupt_lines == 0
    with s.path.open("a") as f:
        f.write(line[30:] + "\n")
    second = mine(memory, repo, claude, tmp_path / "none")
    assert [c.name for c in second.candidates] == ["click"] and second.lines == 1


def test_a_missing_folder_is_a_message_not_a_traceback(cli_env, repo, tmp_path):
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    done = subprocess.run([CENOTAPH, "mine", "transcripts", "--project", PROJECT, "--claude-dir", str(tmp_path / "nope"),
                           "--codex-dir", str(tmp_path / "nope2")], cwd=repo, env=cli_env, capture_output=True,
                          text=True)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"not found: {tmp_path / 'nope'}" in done.stdout and "read 0 of 0 transcript files" in done.stdout

    claude = tmp_path / "claude"
    s = Claude(claude / "projects" / slug(repo) / "s1.jsonl", "s1", repo)
    s.says("stop using tqdm")
    done = subprocess.run([CENOTAPH, "mine", "transcripts", "--json", "--project", PROJECT, "--claude-dir", str(claude),
                           "--codex-dir", str(tmp_path / "nope2")], cwd=repo, env=cli_env, capture_output=True,
                          text=True)
    assert done.returncode == 1  # a named folder is missing
    report = json.loads(done.stdout)
    assert report["files"] == 1 and [p["arguments"]["name"] for p in report["proposals"]["proposed"]] == ["tqdm"]


def test_said_needs_a_plausible_package_name():
    vocabulary = Vocabulary({"requests": "pypi", "polars": "pypi", "left-pad": "npm"}, "pypi")
    said = lambda text: read_said(text, vocabulary, {"pandas": "pypi"})  # noqa: E731
    assert said("no, don't add pandas, we use polars").replacement.name == "polars"
    assert said("Stop using requests.").against == mine_transcripts.Named("requests", "pypi")
    assert said("remove `left-pad` please").against.ecosystem == "npm"
    assert said("remove `@acme/ui`").against == mine_transcripts.Named("@acme/ui", "npm")
    assert said("don't use `orjson`").against == mine_transcripts.Named("orjson", "pypi")  # backticked: shaped
    assert said("remove the file") is None
    assert said("remove it and stop using that approach") is None
    assert said("remove `utils.py`") is None  # a file
    assert said("remove `src/old`") is None  # a path
    assert said("don't use requests for the tests").strong
    assert not said("remove requests from the example").strong


def test_install_commands_are_split_into_ecosystem_and_names():
    found = package_commands("cd app && FOO=1 python -m pip install -U 'pandas==2.1' requests[socks]; "
                             "npm i -D left-pad@^3 @types/node\nuv add polars && cargo add serde -F derive "
                             "&& go get github.com/pkg/errors@v0.9.1 ./... && poetry add pytest@^7 && "
                             "yarn remove lodash && uv pip install httpx && pip install -r requirements.txt")
    assert [(c.removes, c.ecosystem, c.names) for c in found] == [
        (False, "pypi", ("pandas", "requests")), (False, "npm", ("left-pad", "@types/node")),
        (False, "pypi", ("polars",)), (False, "cargo", ("serde",)), (False, "go", ("github.com/pkg/errors",)),
        (False, "pypi", ("pytest",)), (True, "npm", ("lodash",)), (False, "pypi", ("httpx",))]
    assert package_commands("echo pip install x  # pip install y") == []
    assert package_commands("npm run build && npm install") == []


def test_a_run_that_fails_leaves_neither_proposals_nor_cursors(memory, repo, tmp_path):
    claude = tmp_path / "claude"
    s = Claude(claude / "projects" / slug(repo) / "s1.jsonl", "s1", repo)
    s.says("stop using tqdm")
    s.says("stop using click")
    conn = memory.ctx.store.conn
    # The store refuses the second proposal (as a full disk would): the whole run is undone.
    if is_postgres(conn):
        conn.execute("CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                     "IF (SELECT count(*) FROM proposals) > 0 THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$")
        conn.execute("CREATE TRIGGER refuse BEFORE INSERT ON proposals FOR EACH ROW EXECUTE FUNCTION refuse()")
    else:
        conn.execute("CREATE TRIGGER refuse BEFORE INSERT ON proposals WHEN (SELECT count(*) FROM proposals) > 0 "
                     "BEGIN SELECT RAISE(ABORT, 'refused'); END")
    with pytest.raises(Exception, match="refused"):
        mine(memory, repo, claude, tmp_path / "none")
    assert memory.proposals(PROJECT) == []
    assert conn.execute("SELECT count(*) FROM mining_cursors").fetchone()[0] == 0
    conn.execute("DROP TRIGGER refuse ON proposals" if is_postgres(conn) else "DROP TRIGGER refuse")
    report = mine(memory, repo, claude, tmp_path / "none")  # read again in full: nothing was lost
    assert report.lines == 2 and {p.arguments["name"] for p in memory.proposals(PROJECT)} == {"tqdm", "click"}


def test_claude_21_rejections_give_the_persons_words(memory, repo, tmp_path):
    claude = tmp_path / "claude"
    s = Claude(claude / "projects" / slug(repo) / "s1.jsonl", "s1", repo)
    s.call("t1", "pip install pandas")
    s.result("t1", REJECTED_21 + "we use polars for dataframes", is_error=True)
    s.call("t2", "npm install moment")  # the same words inside the error tag some versions write
    s.result("t2", f"<tool_use_error>{REJECTED_21}dates go through date-fns</tool_use_error>", is_error=True)
    s.call("t3", "pip install rich")  # rejected without words: the command is the evidence
    s.result("t3", REJECTED_21.split(" The user provided")[0], is_error=True)
    found = by_name(mine(memory, repo, claude, tmp_path / "none"))
    assert found["pandas"].evidence[0].summary == "we use polars for dataframes"
    assert found["pandas"].replacement == "polars"
    assert found["moment"].evidence[0].summary == "dates go through date-fns"
    assert found["rich"].evidence[0].summary == "pip install rich"


def test_older_codex_rollouts_give_the_persons_words_from_response_items(memory, repo, tmp_path):
    day = tmp_path / "codex" / "sessions" / "2025" / "06" / "01"
    old = Codex(day / "rollout-2025-06-01T09-00-00-old.jsonl", "old", repo)
    old.says_item(f"<environment_context>\n  <cwd>{repo}</cwd>\n</environment_context>")  # the harness's
    old.call("c1", "pip install typer")
    old.output("c1", "exec command rejected by user")
    old.says_item("no, don't use typer, we use click")
    new = Codex(day / "rollout-2025-06-01T10-00-00-new.jsonl", "new", repo)
    new.call("c2", "npm i lodash")
    new.output("c2", "exec command rejected by user")
    new.says_item("not lodash, stop using lodash")  # newer rollouts write the words twice
    new.says("not lodash, stop using lodash")
    found = by_name(mine(memory, repo, tmp_path / "none", tmp_path / "codex"))
    assert set(found) == {"typer", "lodash"}
    assert found["typer"].reason == ('rejected in a Codex session on 2026-03-05: "no, don\'t use typer, we use click"; '
                                     'replaced by click')
    assert [e.role for e in found["lodash"].evidence] == ["rejected", "said"]  # once each, not twice


def test_sessions_that_move_into_the_repository_count_from_then_on(memory, repo, tmp_path):
    day = tmp_path / "codex" / "sessions" / "2026" / "03" / "05"
    c = Codex(day / "rollout-2026-03-05T09-00-00-a.jsonl", "a", tmp_path / "elsewhere")
    c.call("c1", "pip install scrapy")  # another project's
    c.output("c1", "exec command rejected by user")
    c.says("no")
    c.turn(repo / "sub")  # `cd` into the repository
    c.call("c2", "pip install attrs")
    c.output("c2", "exec command rejected by user")
    c.says("we use dataclasses, not attrs")
    c.turn(tmp_path / "elsewhere")  # and out again
    c.call("c3", "pip install flask")
    c.output("c3", "exec command rejected by user")
    never = Codex(day / "rollout-2026-03-05T10-00-00-b.jsonl", "b", tmp_path / "elsewhere")
    never.call("f1", "pip install django")
    never.output("f1", "exec command rejected by user")
    report = mine(memory, repo, tmp_path / "none", tmp_path / "codex")
    assert set(by_name(report)) == {"attrs"} and report.sessions == 1 and report.files == 2
    c.turn(repo)  # a later run: the file's cursor remembers it was outside, the new turn is inside
    c.call("c4", "npm i left-pad")
    c.output("c4", "exec command rejected by user")
    assert {x.name for x in mine(memory, repo, tmp_path / "none", tmp_path / "codex").candidates} == {"left-pad"}


def test_sessions_are_counted_whether_or_not_they_name_a_package(memory, repo, tmp_path):
    claude = tmp_path / "claude"
    quiet = Claude(claude / "projects" / slug(repo) / "quiet.jsonl", "quiet", repo)
    quiet.says("add a docstring to main")
    loud = Claude(claude / "projects" / slug(repo / "sub") / "loud.jsonl", "loud", repo / "sub")
    loud.says("stop using tqdm")
    other = Claude(claude / "projects" / slug(tmp_path / "work" / "other") / "o.jsonl", "o", tmp_path / "work" / "other")
    other.says("stop using click")
    day = tmp_path / "codex" / "sessions" / "2026" / "03" / "05"
    Codex(day / "rollout-2026-03-05T09-00-00-c.jsonl", "c", repo).says("hello")
    Codex(day / "rollout-2026-03-05T09-30-00-d.jsonl", "d", tmp_path / "elsewhere").says("stop using click")
    report = mine(memory, repo, claude, tmp_path / "codex")
    assert report.sessions == 3 and report.files == 4  # two Claude (the project's folders) and two Codex
    assert [c.name for c in report.candidates] == ["tqdm"]


def test_a_last_record_without_a_final_newline_is_read_once(memory, repo, tmp_path):
    claude = tmp_path / "claude"
    s = Claude(claude / "projects" / slug(repo) / "s1.jsonl", "s1", repo)
    s.says("stop using tqdm")
    s.says("stop using click")
    s.path.write_bytes(s.path.read_bytes().rstrip(b"\n"))  # the session ended on an unterminated record
    first = mine(memory, repo, claude, tmp_path / "none")
    assert {c.name for c in first.candidates} == {"tqdm", "click"} and first.lines == 2
    second = mine(memory, repo, claude, tmp_path / "none")
    assert (second.files_read, second.lines, second.candidates) == (0, 0, [])
    s.says("stop using rich")  # resumed: a newline, then the next record
    third = mine(memory, repo, claude, tmp_path / "none")
    assert [c.name for c in third.candidates] == ["rich"] and third.files_reread == 0
