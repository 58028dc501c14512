"""No secret is ever stored: every write door refuses a text holding one, naming the field, the
kind and the range and never the secret; a person may have it redacted, an agent may not."""

from __future__ import annotations

import json
import logging

import pytest
from cenotaph.memory import secrets
from cenotaph.memory.models import Actor
from cenotaph.memory.service import Memory

from tests.memory import secrets_real_text as real
from tests.memory.secrets_corpus import LOOK_ALIKES, SECRETS

HUMAN = Actor(name="cli", kind="human")
REDACTING = Actor(name="cli", kind="human", redact_secrets=True)
AGENT = Actor(name="mcp:test", kind="agent")
AGENT_ASKING_TO_REDACT = Actor(name="mcp:test", kind="agent", redact_secrets=True)
AWS = "AKIAQ3EGUWZXJ7NK4PLR"
WITH_KEY = f"the key is {AWS} for the deploy user"


def test_the_corpus_has_enough_kinds_and_look_alikes():
    assert len({what for what, _, _ in SECRETS}) >= 12 and len(LOOK_ALIKES) >= 30


@pytest.mark.parametrize(("what", "text", "secret"), SECRETS, ids=[s[0] for s in SECRETS])
def test_every_fake_secret_is_found_at_its_range(what, text, secret):
    found = secrets.scan(text)
    start = text.index(secret)
    assert any(f.start <= start and f.end >= start + len(secret) for f in found), (what, found)
    # The range is the secret, not the sentence around it.
    assert all(f.end - f.start <= len(secret) + 40 for f in found)


@pytest.mark.parametrize(("what", "text"), LOOK_ALIKES, ids=[s[0] for s in LOOK_ALIKES])
def test_every_look_alike_is_accepted(what, text):
    assert secrets.scan(text) == []


REAL_ORDINARY = real.ORDINARY + real.HELD_OUT_ORDINARY
REAL_SECRETS = real.SECRET + real.HELD_OUT_SECRET


@pytest.mark.parametrize(("source", "text"), REAL_ORDINARY, ids=[f"{i}:{s[0]}" for i, s in enumerate(REAL_ORDINARY)])
def test_real_text_without_a_credential_passes(source, text):
    """Documentation, code in notes and commit messages: identifiers (`PARSE_DECLTYPES`,
    `PasswordField(`, `os.environ['X']`), placeholders and prose about passwords are no secret."""
    assert secrets.scan(text) == [], source


@pytest.mark.parametrize(("source", "text", "secret"), REAL_SECRETS,
                         ids=[f"{i}:{s[0]}" for i, s in enumerate(REAL_SECRETS)])
def test_every_real_shape_and_prose_secret_is_found(source, text, secret):
    found = secrets.scan(text)
    start = text.index(secret)
    assert any(f.start <= start and f.end >= start + len(secret) for f in found), (source, found)
    # Only the value is marked: redacting keeps the sentence that says what it was.
    redacted = secrets.redact(text, found)
    assert secret not in redacted and redacted.startswith(text[:min(f.start for f in found)])


def test_a_url_password_is_found_whatever_comes_before_its_scheme():
    """The scheme may follow a letter, a digit or a space, and a 50,000-letter word before the
    URL or in place of it changes nothing (it is read once, not once per letter)."""
    word = "y" * 50_000
    for before in ("clone x", "clone 1", "clone ", f"run {word} then "):
        text = f"{before}git+ssh://deploy:Zq8!rT2w@host/repo"
        start = text.index("Zq8!rT2w")
        assert secrets.scan(text) == [secrets.Finding("Basic Auth Credentials", start, start + 8)], before
    assert secrets.scan(word) == [] and secrets.scan(f"clone {word}/repo") == []


def test_prose_secrets_are_redacted_to_their_value():
    assert secrets.redact("the db password is hunter2") == "the db password is [REDACTED:Password]"
    assert (secrets.redact("staging login is admin / Tr0ub4dor-x9Q2-Lm7Z")
            == "staging login is admin / [REDACTED:Login Credentials]")
    # Positive control beside it: the same sentences about, not of, a password pass.
    assert secrets.scan("the db password is stored in the vault") == []


def test_remember_refuses_naming_the_kind_and_range_and_stores_nothing(memory: Memory, caplog):
    caplog.set_level(logging.DEBUG)
    with pytest.raises(secrets.SecretFound) as refused:
        memory.remember(HUMAN, WITH_KEY, project="p", tags=["deploy"])
    assert refused.value.field == "content"
    assert str(refused.value).startswith("content: AWS Access Key at 11–31")
    assert AWS not in str(refused.value) and AWS not in caplog.text
    assert memory.audit_log() == [] and memory.recent("p") == []
    # Positive control: the same sentence without the key is stored.
    assert memory.remember(HUMAN, "the key is in the vault for the deploy user", project="p").stored


def test_a_person_may_store_it_redacted_an_agent_never(memory: Memory):
    stored = memory.remember(REDACTING, WITH_KEY, project="p", tags=["deploy"])
    assert stored.memory.content == "the key is [REDACTED:AWS Access Key] for the deploy user"
    for agent in (AGENT, AGENT_ASKING_TO_REDACT):
        with pytest.raises(secrets.SecretFound, match="remove the secret") as refused:
            memory.remember(agent, f"the other key is {AWS} for the build user", project="p")
        assert AWS not in str(refused.value)
    assert AWS not in json.dumps([e.after for e in memory.audit_log()])


def test_a_name_holding_a_secret_is_refused_even_when_redacting(memory: Memory):
    """A tag or a reason can be redacted; an approach's name cannot (it would name nothing, and it
    becomes a file name when shared): it is refused whoever asks."""
    token = "ghp_R7x2Kq9LmN4pV8sT1wY6zB3cD5fG0hJ2kQ4e"
    for door in (lambda: memory.abandon(REDACTING, token, reason="leaked", project="p"),
                 lambda: memory.record_experience(REDACTING, "moved deploys", project="p", outcome="success",
                                                  effort=2, abandoned=[(token, "leaked")])):
        with pytest.raises(secrets.SecretFound) as refused:
            door()
        assert refused.value.field in ("name", "abandoned[0].name") and token not in str(refused.value)
    assert memory.graveyard.in_scope("p") == [] and memory.audit_log() == []
    # Positive control: the same doors take an ordinary name and redact the reason.
    memory.abandon(REDACTING, "left-pad", reason=f"its token was {token}", project="p")
    assert [a.name for a in memory.graveyard.in_scope("p")] == ["left-pad"]


def test_a_secret_typed_into_a_recall_is_logged_redacted(memory: Memory):
    memory.remember(HUMAN, "the staging database is reset every Monday", project="p")
    memory.recall(HUMAN, "staging database password is Zq8mW2vL9xKp", project="p")
    memory.recall(HUMAN, "when is the staging database reset", project="p")
    queries = [r.query for r in memory.why("staging database", "p").recalls]
    # The positive control: the clean query is logged as typed.
    assert "when is the staging database reset" in queries
    assert "staging database password is [REDACTED:Password]" in queries
    assert not any("Zq8mW2vL9xKp" in q for q in queries)
    # Only texts with a digit or a symbol are scanned; every real secret of the corpus has one.
    assert not secrets.may_hold_secret("when is the staging database reset? (ask ops)")
    assert all(secrets.may_hold_secret(text) for _, text, _ in REAL_SECRETS + SECRETS)


def _fresh(memory: Memory) -> int:
    """A new memory to change (forced: the doors' positive controls write the same sentence again)."""
    return memory.remember(HUMAN, "deploys run at noon", project="p", force=True).id


def _abandoned(memory: Memory, actor: Actor, text: str):
    return memory.abandon(actor, "left-pad", reason=text, project="p")


DOORS = {
    "tags": lambda m, a, t: m.remember(a, "a clean note about deploys", project="p", tags=[t]),
    "update content": lambda m, a, t: m.update(a, _fresh(m), content=t),
    "update reason": lambda m, a, t: m.update(a, _fresh(m),
                                              content="deploys run at one", reason=t),
    "abandon reason": _abandoned,
    "experience summary": lambda m, a, t: m.record_experience(a, t, project="p", outcome="success", effort=2),
    "experience breakthrough": lambda m, a, t: m.record_experience(a, "moved deploys", project="p",
                                                                    outcome="success", effort=2, breakthrough=t),
    "experience gotchas": lambda m, a, t: m.record_experience(a, "moved deploys", project="p", outcome="success",
                                                               effort=2, gotchas=[t]),
    "experience abandoned reason": lambda m, a, t: m.record_experience(a, "moved deploys", project="p",
                                                                        outcome="success", effort=2,
                                                                        abandoned=[("celery", t)]),
    "deprioritise reason": lambda m, a, t: m.deprioritise(a, _fresh(m),
                                                          reason=t),
    "deprioritise hints": lambda m, a, t: m.deprioritise(a, _fresh(m),
                                                         reason="stale", hints=[t]),
    "forget reason": lambda m, a, t: m.forget(a, _fresh(m), reason=t,
                                              confirm=True),
    "trust reason": lambda m, a, t: m.set_trust(a, _fresh(m), "disputed",
                                                reason=t),
    "suppression reason": lambda m, a, t: m.suppress(a, "left-pad", kind="diagnostic", project="p", reason=t),
}


@pytest.mark.parametrize("door", DOORS)
def test_every_write_door_refuses_a_secret(memory: Memory, door):
    events_before = len(memory.audit_log())
    with pytest.raises(secrets.SecretFound) as refused:
        DOORS[door](memory, HUMAN, WITH_KEY)
    assert "AWS Access Key at 11–31" in str(refused.value) and AWS not in str(refused.value)
    # The door's own preparation (a memory to update, say) may have written; the refused call did not.
    logged = memory.audit_log()
    assert AWS not in json.dumps([(e.after, e.reason) for e in logged])
    assert all(AWS not in m.content for m in memory.recent("p", limit=100))
    # Positive control: the same door takes clean text.
    DOORS[door](memory, HUMAN, "a clean reason about deploys")
    assert len(memory.audit_log()) > events_before


def test_import_refuses_the_lines_with_secrets_by_number_and_takes_the_rest(memory: Memory):
    lines = [json.dumps({"content": text}) for _, text in LOOK_ALIKES[:5]]
    lines += [json.dumps({"content": text}) for _, text, _ in SECRETS]
    lines.append(json.dumps({"content": "a clean note", "tags": [AWS]}))
    report = memory.import_jsonl(HUMAN, lines, project="p")
    assert report.imported == 5
    assert [r.line for r in report.refused] == list(range(6, 6 + len(SECRETS) + 1))
    assert {r.field for r in report.refused} == {"content", "tags[0]"}
    assert all(secret not in r.message for r, (_, _, secret) in zip(report.refused, SECRETS, strict=False))

    redacted = memory.import_jsonl(REDACTING, [json.dumps({"content": WITH_KEY})], project="q")
    assert redacted.imported == 1
    assert memory.recent("q")[0].content == "the key is [REDACTED:AWS Access Key] for the deploy user"


def test_repair_check_reports_a_secret_stored_before_screening(memory: Memory):
    clean = memory.remember(HUMAN, "the deploy user's key is in the vault", project="p").id
    assert memory.check_store().secrets == []  # the positive control
    # An old store: the text went in before every write was screened.
    with memory.ctx.store.write() as tx:
        tx.execute("UPDATE memories SET content = ? WHERE memory_id = ?", (WITH_KEY, clean))
    check = memory.check_store()
    assert check.secrets == [f"memory #{clean} v1 content: AWS Access Key at 11–31"]
    assert not check.ok


def test_redaction_replaces_each_secret_and_keeps_the_rest():
    text = f"key {AWS} and token ghp_R7x2Kq9LmN4pV8sT1wY6zB3cD5fG0hJ2kQ4e end"
    assert secrets.redact(text) == "key [REDACTED:AWS Access Key] and token [REDACTED:GitHub Token] end"
