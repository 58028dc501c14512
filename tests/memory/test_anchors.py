"""Memories anchored to code (issue 41): taken from a file in a real git repository, followed when
lines move or the file is renamed, stale when the anchored code changes, lost when the file goes;
recall re-checks them and ranks a stale memory below current ones; re-confirm and retire."""

from __future__ import annotations

import pytest
from cenotaph.memory.knowledge.anchors.fingerprint import FOLLOW_THRESHOLD, refind, shift, take
from cenotaph.memory.errors import InvalidInput, NotFound
from cenotaph.store import anchors as store_anchors

from tests.conftest import HUMAN
from tests.gitrepo import GitRepo

P = "github.com/acme/app"
RETRY = "def retry_after(response):\n    header = response.headers.get('Retry-After')\n    return int(header or 1)\n"
SOURCE = f"import time\n\n\n{RETRY}\n\ndef backoff(n):\n    return 2 ** n\n"


@pytest.fixture
def repo(tmp_path, memory) -> GitRepo:
    repository = GitRepo(tmp_path / "app")
    repository.commit("start", {"net.py": SOURCE, "other.py": "x = 1\n"})
    memory.attach_repositories([(repository.root, P)])
    return repository


def _anchored(memory, text: str, at: str) -> int:
    result = memory.remember(HUMAN, text, project=P, at=at)
    assert result.stored
    return result.id


def _state(memory, memory_id: int):
    return next(i.anchor for i in memory.anchored(P) if i.memory_id == memory_id)


def test_an_anchor_is_taken_with_its_text_context_and_commit(memory, repo):
    head = repo.git("rev-parse", "HEAD")
    memory_id = _anchored(memory, "retry_after trusts the server's Retry-After header", "net.py:4-6")
    [item] = memory.anchored(P)
    assert (item.memory_id, item.anchor.path, item.anchor.start_line, item.anchor.end_line) == (memory_id, "net.py", 4, 6)
    assert (item.anchor.state, item.revision, item.then, item.now) == ("current", head, RETRY.rstrip("\n"), RETRY.rstrip("\n"))
    response = memory.recall(HUMAN, "Retry-After header", project=P)
    assert [(r.id, r.anchor.state if r.anchor else None) for r in response.results] == [(memory_id, "current")]


def test_lines_inserted_above_move_the_anchor_and_an_edit_elsewhere_keeps_it(memory, repo):
    memory_id = _anchored(memory, "retry_after trusts the server's Retry-After header", "net.py:4-6")
    (repo.root / "net.py").write_text("# a header\n# of two lines\n" + SOURCE.replace("2 ** n", "3 ** n"))
    anchor = _state(memory, memory_id)
    assert (anchor.path, anchor.start_line, anchor.end_line, anchor.state) == ("net.py", 6, 8, "moved")
    # The store followed: the next check finds it where it is, current.
    assert _state(memory, memory_id).state == "current"


def test_a_rewritten_function_is_stale_and_ranks_below_a_current_memory(memory, repo):
    stale_id = _anchored(memory, "retry_after reads the Retry-After header as seconds", "net.py:4-6")
    current_id = _anchored(memory, "backoff doubles the wait: the Retry-After header is not read", "net.py:9-10")
    before = memory.recall(HUMAN, "retry_after reads the Retry-After header as seconds", project=P)
    assert [r.id for r in before.results][:2] == [stale_id, current_id]  # the control: first while current
    (repo.root / "net.py").write_text(SOURCE.replace(
        "    header = response.headers.get('Retry-After')\n    return int(header or 1)\n",
        "    if response.status_code != 429:\n        return None\n    return parse_http_date(response.headers['Date'])\n"))
    after = memory.recall(HUMAN, "retry_after reads the Retry-After header as seconds", project=P)
    states = {r.id: r.anchor for r in after.results}
    assert [r.id for r in after.results][:2] == [current_id, stale_id]
    assert states[stale_id].state == "stale" and "may no longer hold" in states[stale_id].caution
    # The rewrite is a line longer: the other anchor was followed below it.
    assert (states[current_id].state, states[current_id].start_line, states[current_id].caution) == ("moved", 10, "")
    assert [i.memory_id for i in memory.anchored(P, stale_only=True)] == [stale_id]


def test_a_renamed_file_is_followed_through_git_and_a_deleted_one_is_lost(memory, repo):
    memory_id = _anchored(memory, "retry_after trusts the server's Retry-After header", "net.py:4-6")
    gone_id = _anchored(memory, "other.py sets x", "other.py:1")
    repo.git("mv", "net.py", "http_client.py")
    repo.commit("rename", {"http_client.py": "# moved\n" + SOURCE, "other.py": None})
    items = {i.memory_id: i for i in memory.anchored(P)}
    followed, gone = items[memory_id], items[gone_id]
    assert (followed.anchor.path, followed.anchor.start_line, followed.anchor.state) == ("http_client.py", 5, "moved")
    assert (gone.anchor.state, gone.now, gone.then) == ("lost", "", "x = 1")


def test_reconfirm_takes_the_code_as_it_is_now_and_retire_archives(memory, repo):
    memory_id = _anchored(memory, "retry_after trusts the server's Retry-After header", "net.py:4-6")
    other_id = _anchored(memory, "backoff doubles the wait", "net.py:9-10")
    changed = SOURCE.replace("    header = response.headers.get('Retry-After')\n    return int(header or 1)", "    raise NotImplementedError")
    (repo.root / "net.py").write_text(changed)
    assert _state(memory, memory_id).state == "stale"
    item = memory.reconfirm_anchor(HUMAN, memory_id)
    assert (item.anchor.state, item.then) == ("current", "\n".join(changed.splitlines()[3:5]))
    assert _state(memory, memory_id).state == "current"
    memory.retire_anchored(HUMAN, other_id, reason="backoff was rewritten")
    assert memory.get(other_id).state == "archived"
    assert [i.memory_id for i in memory.anchored(P)] == [memory_id]


@pytest.mark.parametrize("at", ["net.py:40", "net.py:5-3", "missing.py:1", "../outside.py:1", "net.py"])
def test_an_anchor_that_names_no_lines_of_the_repository_is_refused_before_anything_is_stored(memory, repo, at):
    with pytest.raises(InvalidInput) as refused:
        memory.remember(HUMAN, "a note about nothing", project=P, at=at)
    assert refused.value.field == "at"
    assert memory.recent(P) == []
    assert memory.remember(HUMAN, "a note about something", project=P, at="net.py:1").stored  # the control


def test_fingerprint_refind_prefers_the_copy_whose_context_matches():
    lines = ["a", "x = 1", "b", "", "c", "x = 1", "d"]
    taken = take(lines, 6, 6)
    moved = ["new"] + lines
    found = refind(taken, moved, 2)  # the old place now holds the other copy's line
    assert (found.start_line, found.similarity) == (7, 1.0)
    assert refind(take(lines, 2, 2), moved, 2).start_line == 3  # the control: its own context


def test_a_small_edit_is_followed_and_a_rewrite_is_not():
    lines = RETRY.splitlines()
    taken = take(lines, 1, 3)
    renamed = [lines[0], lines[1].replace("header", "value"), lines[2].replace("header", "value")]
    assert refind(taken, renamed, 1).similarity >= FOLLOW_THRESHOLD
    rewritten = [lines[0], "    raise NotImplementedError", ""]
    assert refind(taken, rewritten, 1).similarity < FOLLOW_THRESHOLD


@pytest.mark.parametrize(("edit", "expected"), [
    ((1, 0, 2), (6, 8, False)),    # two lines inserted above
    ((1, 2, 0), (2, 4, False)),    # two lines removed above
    ((10, 12, 5), (4, 6, False)),  # below
    ((5, 5, 3), (4, 8, True)),     # a line inside became three
    ((3, 4, 1), (3, 5, True)),     # an edit from above into its first line
])
def test_shift_moves_an_anchor_as_a_bookmark_moves(edit, expected):
    assert shift(4, 6, *edit) == expected


def test_a_one_token_change_is_stale_while_comments_and_layout_are_not(memory, repo):
    # Similarity alone lets a small change in a longer block through (it stays above the follow
    # threshold): any change to the code but whitespace and line comments may change what it does.
    memory_id = _anchored(memory, "retry_after trusts the server's Retry-After header", "net.py:4-6")
    cosmetic = RETRY.replace("    header =", "    # the header, if the server sent one\n    header =").replace(
        "int(header or 1)", "int( header or 1 )  # seconds")
    (repo.root / "net.py").write_text(SOURCE.replace(RETRY, cosmetic))
    assert _state(memory, memory_id).state in ("current", "moved")  # the control: a comment and spaces
    (repo.root / "net.py").write_text(SOURCE.replace(RETRY, cosmetic.replace("or 1", "or 2")))
    assert _state(memory, memory_id).state == "stale"


def test_line_comments_are_read_by_the_files_language():
    from cenotaph.memory.knowledge.anchors.fingerprint import code_changed

    assert not code_changed("let a = f(x); // why", "let a = f(x); // because", "web/app.ts")
    assert code_changed("let a = f(x);", "let a = g(x);", "web/app.ts")  # the control
    assert code_changed("q = a // b", "q = a // c", "calc.py")  # floor division, not a comment, in Python
    assert not code_changed("q = a // b  # per page", "q = a // b  # pages", "calc.py")
    assert not code_changed('s = "#1"  # first', 's = "#1"', "tags.py")  # a `#` inside a string stays code
    assert code_changed('s = "#1"', 's = "#2"', "tags.py")
    assert code_changed("#[derive(Debug)]", "#[derive(Clone)]", "src/lib.rs")  # Rust attributes are code


def test_one_anchored_memory_is_read_and_checked_alone(memory, repo):
    memory_id = _anchored(memory, "retry_after trusts the server's Retry-After header", "net.py:4-6")
    other = _anchored(memory, "backoff doubles the wait", "net.py:9-10")
    (repo.root / "net.py").write_text("# a header\n" + SOURCE.replace("2 ** n", "3 ** n"))
    item = memory.anchors.one(memory_id)
    assert (item.memory_id, item.anchor.start_line, item.anchor.state, item.content) == (
        memory_id, 5, "moved", "retry_after trusts the server's Retry-After header")
    assert memory.anchors.one(other).anchor.state == "stale"  # the control: its code changed
    plain = memory.remember(HUMAN, "Timeouts are in seconds.", project=P).id
    with pytest.raises(NotFound, match="has no anchor"):
        memory.anchors.one(plain)


def test_a_files_anchors_are_its_memories_in_use_each_checked(memory, repo):
    kept = _anchored(memory, "retry_after trusts the server's Retry-After header", "net.py:4-6")
    retired = _anchored(memory, "backoff doubles the wait", "net.py:9-10")
    elsewhere = _anchored(memory, "x starts at one", "other.py:1")
    assert [i.memory_id for i in memory.anchors_in(P, repo.root / "net.py")] == [kept, retired]  # the control
    memory.retire_anchored(HUMAN, retired, reason="rewritten")
    (repo.root / "net.py").write_text("\n" + SOURCE)
    [item] = memory.anchors_in(P, repo.root / "net.py")
    assert (item.memory_id, item.content, item.anchor.start_line, item.anchor.state) == (
        kept, "retry_after trusts the server's Retry-After header", 5, "moved")
    assert [i.memory_id for i in memory.anchors_in(P, repo.root / "other.py")] == [elsewhere]


def test_checking_many_anchors_at_once_judges_each_as_alone(memory, repo):
    ids = [_anchored(memory, "retry_after trusts the server's Retry-After header", "net.py:4-6"),
           _anchored(memory, "backoff doubles the wait", "net.py:9-10"),
           _anchored(memory, "x starts at one", "other.py:1")]
    (repo.root / "net.py").write_text("# moved\n" + SOURCE.replace("2 ** n", "3 ** n"))
    (repo.root / "other.py").unlink()
    with memory.ctx.store.read() as conn:
        rows = [store_anchors.of(conn, [i])[i] for i in ids]
    together = [c.anchor for c in memory.anchors.checks(rows)]
    assert together == [memory.anchors.check(row).anchor for row in rows]
    assert [a.state for a in together] == ["moved", "stale", "lost"]


def test_python_docstrings_and_annotations_do_not_change_what_code_does():
    from cenotaph.memory.knowledge.anchors.fingerprint import code_changed

    method = '    def major(self):\n        """The first item."""\n        return self.release[0]\n'
    documented = method.replace("The first item.", "The first item of the release segment, or 0.")
    annotated = method.replace("(self):", "(self) -> int:")
    assert not code_changed(method, documented, "version.py")
    assert not code_changed(method, annotated, "version.py")
    # Controls: what it returns, and a string that is a value rather than a docstring.
    assert code_changed(method, method.replace("release[0]", "release[1]"), "version.py")
    assert code_changed('x = "a"\n', 'x = "b"\n', "version.py")
    # Half a block does not parse: compared as text, a docstring-like line counts.
    cut = 'def f():\n    """Why."""\n    if x:\n'
    assert code_changed(cut, cut.replace("Why.", "Because."), "version.py")
    # Other languages keep their doc comments as text beyond line comments.
    assert code_changed("/** one */ f();", "/** two */ f();", "a.ts")


def test_a_short_function_rewritten_with_annotations_is_found_whole_and_still_holds():
    from cenotaph.memory.knowledge.anchors.fingerprint import refind, similarity, stale, take

    before = ['class retry_if_result(retry_base):', '    """Retries if the result verifies a predicate."""', '',
              '    def __init__(self, predicate):', '        self.predicate = predicate', '',
              '    @_compat.retry_dunder_call_accept_old_params', '    def __call__(self, retry_state):',
              '        return self.predicate(retry_state.outcome.result())']
    after = ['import typing', ''] + before[:3] + [
        '    def __init__(self, predicate: typing.Callable[[typing.Any], bool]) -> None:',
        '        self.predicate = predicate', '',
        '    def __call__(self, retry_state: "RetryCallState") -> bool:',
        '        return self.predicate(retry_state.outcome.result())']
    taken = take(before, 4, 5)
    found = refind(taken, after, 4)
    assert (found.start_line, found.end_line) == (6, 7)  # both lines, not the changed one alone
    now = "\n".join(after[5:7])
    assert similarity(taken.text, now) < 0.75  # unlike as text …
    assert not stale(taken.text, now, "tenacity/retry.py", similarity(taken.text, now))  # … the same code
    # Controls: the same rewrite is stale where the language is not read, and so is a changed body.
    assert stale(taken.text, now, "retry.txt", similarity(taken.text, now))
    changed = now.replace("= predicate", "= lambda r: not predicate(r)")
    assert stale(taken.text, changed, "tenacity/retry.py", similarity(taken.text, changed))
