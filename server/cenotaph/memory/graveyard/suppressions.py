"""Suppressions, keyed on a normalized name and never on a substring of content: `diagnostic`
(stop flagging the name in editors) and `recall` (keep memories whose extracted entities include
the name out of recall; the graveyard record explaining it stays visible). They are human
verdicts in their own table, which no rebuild or reindex touches."""

from __future__ import annotations

from cenotaph.memory import secrets, validate
from cenotaph.memory.context import Context
from cenotaph.memory.errors import Conflict, InvalidInput, NotFound
from cenotaph.memory.graveyard.approaches import Graveyard, tag_mentions
from cenotaph.memory.graveyard.verdicts import guess_ecosystem
from cenotaph.memory.models import Actor
from cenotaph.nlp import ecosystems, names
from cenotaph.store import suppressions
from cenotaph.store.records import SuppressionRow

KINDS = ("diagnostic", "recall")


def key_for(graveyard: Graveyard, name: str, project: str, ecosystem: str | None = None) -> tuple[str, set[str]]:
    """The normalized value a suppression of `name` is keyed on (the graveyard's own key when
    the name is there), and the spellings of it that memories may contain."""
    if ecosystem is not None:
        validate.choice(ecosystem, "ecosystem", ecosystems.NAMES)
    verdict = graveyard.check([name], project, ecosystem=ecosystem)[0]
    if verdict.approach is not None:
        approach = verdict.approach
        key = approach.name
        spellings = {key, names.fold(approach.display_name), *approach.aliases}
    else:  # a name only: one its ecosystem takes (a record already kept is lifted whatever its name)
        key = ecosystems.normalize(validate.package_name(name, ecosystem=ecosystem), ecosystem or guess_ecosystem(name))
        spellings = {key}
    if not key:
        raise InvalidInput("does not contain a package or tool name", field="name")
    spellings.update({names.fold(name), *ecosystems.aliases_for(key)})
    return key, spellings


def _arguments(name: str, kind: str, project: str) -> tuple[str, str, str]:
    name = validate.text(name, "name", max_length=validate.MAX_NAME).strip()
    kind = validate.choice(kind, "kind", KINDS)
    return name, kind, validate.project(project)


def suppress(ctx: Context, graveyard: Graveyard, actor: Actor, name: str, *, kind: str, project: str, reason: str,
             ecosystem: str | None = None) -> SuppressionRow:
    name, kind, project = _arguments(name, kind, project)
    reason = secrets.screen(validate.text(reason, "reason"), "reason", actor)
    key, spellings = key_for(graveyard, name, project, ecosystem)
    with ctx.store.write() as tx:
        existing = suppressions.find_active(tx, project=project, kind=kind, value=key)
        if existing is not None:
            return existing
        suppression_id = suppressions.add(tx, project=project, kind=kind, value=key, reason=reason, actor=actor.name,
                                          at=ctx.now())
        if kind == "recall":
            # Entity extraction only knew the name if it was already in the vocabulary.
            tag_mentions(tx, project, key, spellings)
        ctx.event(tx, actor=actor.name, action="suppress", target=f"suppression:{key}", project=project,
                  after={"id": suppression_id, "kind": kind, "value": key}, reason=reason)
        found = suppressions.get(tx, suppression_id)
    assert found is not None
    return found


def active(ctx: Context, graveyard: Graveyard, name: str, *, kind: str, project: str) -> SuppressionRow:
    """The suppression `unsuppress` would lift, in exactly this scope."""
    name, kind, project = _arguments(name, kind, project)
    key, _ = key_for(graveyard, name, project)
    with ctx.store.read() as conn:
        found = suppressions.find_active(conn, project=project, kind=kind, value=key)
        elsewhere = [s.project for s in suppressions.active(conn, kind=kind) if s.value == key]
    if found is None:
        hint = ""
        if "" in elsewhere:
            hint = "; it is suppressed globally (use --global)"
        elif elsewhere:
            hint = f"; it is suppressed in {', '.join(sorted(set(elsewhere)))}"
        where = "globally" if project == "" else f"in {project}"
        raise NotFound(f"{key!r} has no {kind} suppression {where}{hint}", field="name")
    return found


def in_scope(ctx: Context, project: str) -> list[SuppressionRow]:
    """The suppressions in force in `project`: its own and the global ones, newest first."""
    with ctx.store.read() as conn:
        rows = suppressions.active(conn)
    return sorted((s for s in rows if s.project in (project, "")), key=lambda s: s.id, reverse=True)


def unsuppress(ctx: Context, actor: Actor, suppression: SuppressionRow, *, reason: str) -> SuppressionRow:
    reason = secrets.screen(validate.text(reason, "reason"), "reason", actor)
    with ctx.store.write() as tx:
        current = suppressions.get(tx, suppression.id)
        if current is None or current.lifted_at is not None:
            raise Conflict(f"the {suppression.kind} suppression of {suppression.value!r} was already lifted",
                           field="name")
        suppressions.lift(tx, suppression.id, reason=reason, actor=actor.name, at=ctx.now())
        ctx.event(tx, actor=actor.name, action="unsuppress", target=f"suppression:{suppression.value}",
                  project=suppression.project, before={"id": suppression.id, "kind": suppression.kind, "lifted": False},
                  after={"id": suppression.id, "kind": suppression.kind, "lifted": True}, reason=reason)
        found = suppressions.get(tx, suppression.id)
    assert found is not None
    return found
