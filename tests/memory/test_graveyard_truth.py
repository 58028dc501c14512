"""Issue 41.5, the graveyard's truth kept: reinstating an approach ends (valid time) the memory
that tells its abandonment, and records why it came back; recall shows the story as history,
after what holds, never as current advice. Abandoned again, the story holds again (its versions
keep the interval) and the reinstatement is history in its turn."""

from __future__ import annotations

from cenotaph.mcp.tools.results import recall_reply

from tests.conftest import AGENT, HUMAN

P = "github.com/acme/api"
QUERY = "httpx test client streaming"


def _memories(memory, query: str = QUERY):
    return [r for r in memory.recall(HUMAN, query, project=P).results if r.result_type == "memory"]


def _told(results, start: str):
    (found,) = [r for r in results if r.content.startswith(start)]
    return found


def test_a_reinstated_approach_s_story_is_history_and_the_reason_it_came_back_is_recalled(memory, clock):
    memory.abandon(HUMAN, "httpx", reason="Test client hangs on streaming responses", project=P, ecosystem="pypi")
    memory.remember(HUMAN, "The httpx test client streams responses in the upload tests", project=P)
    story = _told(_memories(memory), "Abandoned httpx")
    assert not story.history and story.valid_to is None  # the control: before, it holds

    clock.advance(days=3)
    memory.reinstate_approach(HUMAN, "httpx", reason="0.27 fixed the streaming hang in the test client", project=P)
    after = _memories(memory)
    story, back = _told(after, "Abandoned httpx"), _told(after, "Reinstated httpx")
    assert back.content == "Reinstated httpx: 0.27 fixed the streaming hang in the test client"
    assert back.kind == "decision" and not back.history and "reinstated" in back.tags
    assert story.history and story.valid_to[:10] == clock().date().isoformat()
    assert after.index(story) > max(after.index(r) for r in after if not r.history)  # after all that holds
    assert memory.contradictions(P) == []  # what held before is no clash with what holds now
    text = recall_reply(memory.recall(HUMAN, QUERY, project=P), explain=False).content[0].text
    assert f"history: this held until {story.valid_to[:10]}" in text
    assert "Reinstated httpx: 0.27 fixed" in text

    clock.advance(days=5)
    memory.abandon(HUMAN, "httpx", reason="the streaming hang is back in 0.28", project=P, ecosystem="pypi")
    again = _memories(memory)
    retold = _told(again, "Abandoned httpx")  # told once: the story holds again, with its new reason
    assert (retold.id, retold.content, retold.history) == (story.id, "Abandoned httpx: the streaming hang is back in 0.28",
                                                           False)
    assert _told(again, "Reinstated httpx").history
    versions = memory.history(story.id).versions
    assert [(v.content[:30], v.valid_to is not None) for v in versions] == [
        ("Abandoned httpx: Test client h", False), ("Abandoned httpx: Test client h", True),
        ("Abandoned httpx: Test client h", False), ("Abandoned httpx: the streaming", False)]


def test_an_agent_s_reinstatement_changes_nothing_until_a_person_accepts_it(memory):
    memory.abandon(HUMAN, "httpx", reason="Test client hangs on streaming responses", project=P, ecosystem="pypi")
    proposal = memory.reinstate_approach(AGENT, "httpx", reason="0.27 fixed the hang", project=P)
    assert not _told(_memories(memory), "Abandoned httpx").history  # only proposed
    memory.accept_proposal(HUMAN, proposal.id)
    after = _memories(memory)
    assert _told(after, "Abandoned httpx").history and not _told(after, "Reinstated httpx").history


def test_history_is_relative_to_the_moment_asked(memory, clock):
    memory.abandon(HUMAN, "httpx", reason="Test client hangs on streaming responses", project=P, ecosystem="pypi")
    clock.advance(days=3)
    memory.reinstate_approach(HUMAN, "httpx", reason="0.27 fixed the streaming hang", project=P)

    def at(moment: str):
        return [r for r in memory.recall(HUMAN, QUERY, project=P, valid_at=moment).results if r.result_type == "memory"]

    then = at("2026-03-02")  # the day after it was written, the story held: no history then
    assert [r.history for r in then if r.content.startswith("Abandoned httpx")] == [False]
    now = at(clock().isoformat())  # now it holds no longer: a valid-time read leaves it out
    assert [r.content for r in now if r.content.startswith(("Abandoned httpx", "Reinstated httpx"))] == [
        "Reinstated httpx: 0.27 fixed the streaming hang"]


def test_the_graveyard_index_follows_the_log_and_is_built_again_only_when_the_graveyard_changed(memory):
    """The cached index reads the log's head and whether anything after it touched the graveyard
    (one statement): a memory written moves its number and keeps it; an abandon (the control)
    builds it again with the new name."""
    memory.abandon(HUMAN, "httpx", reason="Test client hangs on streaming responses", project=P, ecosystem="pypi")
    first = memory.graveyard.index()
    memory.remember(HUMAN, "The upload tests stream their responses", project=P)
    after_memory = memory.graveyard.index()
    assert after_memory.seq > first.seq and after_memory.vocabulary is first.vocabulary
    assert memory.graveyard.index() is after_memory  # nothing since: the same index
    memory.abandon(HUMAN, "requests-mock", reason="Mocks hide the streaming bug", project=P, ecosystem="pypi")
    rebuilt = memory.graveyard.index()
    assert rebuilt.vocabulary is not first.vocabulary and "requests-mock" in rebuilt.vocabulary
    assert "httpx" in rebuilt.vocabulary
