"""Who on the team may do what, on a PostgreSQL store: a person is a login, with the reader,
writer or reviewer role in this store (store/postgres/team.py grants them; the database enforces
them). On SQLite there are no logins: the person at the keyboard is the reviewer, and an agent's
person-only verbs become proposals (memory/proposals.py)."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from urllib.parse import quote, urlsplit, urlunsplit

from cenotaph.memory.context import Context
from cenotaph.memory.errors import Conflict, InvalidInput, NotFound
from cenotaph.memory.models import Actor
from cenotaph.memory.validate import choice

ROLES = ("reader", "writer", "reviewer")
# A login name a person is known by: a name or an e-mail address (PostgreSQL allows 63 bytes).
_PERSON = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,62}$")


@dataclass(slots=True)
class TeamMember:
    person: str
    role: str


@dataclass(slots=True)
class NewMember:
    """A person added to the team. `password` and `url` are shown once: the store keeps only its hash."""

    person: str
    role: str
    url: str  # the store's address as this person connects to it (with the password when one was made)
    pgpass: str | None  # the same as a line for ~/.pgpass (host:port:database:user:password)
    password: str | None  # None: the login existed already, its password unchanged


def _team_store(ctx: Context):  # noqa: ANN202 (store/postgres/team, imported only on PostgreSQL)
    if ctx.store.role is None:
        raise Conflict("team roles are a PostgreSQL store's: on SQLite the person at the keyboard is the reviewer "
                       "and agents propose", field="store")
    from cenotaph.store.postgres import team

    return team


def _person(value: object) -> str:
    if not isinstance(value, str) or not _PERSON.match(value):
        raise InvalidInput("a person's login is letters, digits and . _ @ + - (at most 63, starting with a letter "
                           "or digit)", field="person")
    return value


def add(ctx: Context, actor: Actor, person: str, role: str) -> NewMember:
    person, role = _person(person), choice(role, "role", ROLES)
    team = _team_store(ctx)
    ctx.ensure_vectors()  # made by the owner now, and granted with the rest: no member may create tables
    with ctx.store.write() as conn:
        if person == ctx.store.role:
            raise Conflict(f"{person} owns this store's session: give another person a role", field="person")
        team.prepare(conn)
        password = None
        if not team.login_exists(conn, person):
            password = secrets.token_urlsafe(18)
            team.create_login(conn, person, password)
        team.assign(conn, person, role)
        ctx.event(conn, actor=actor.name, action="team:add", target=f"person:{person}", project="",
                  after={"role": role})
    url, pgpass = _address(ctx.store.url, person, password)
    return NewMember(person=person, role=role, url=url, pgpass=pgpass, password=password)


def set_role(ctx: Context, actor: Actor, person: str, role: str) -> TeamMember:
    person, role = _person(person), choice(role, "role", ROLES)
    team = _team_store(ctx)
    with ctx.store.write() as conn:
        held = team.role_of(conn, person)
        if held is None:
            raise NotFound(f"{person} has no role in this store: add them with `cenotaph team add`", field="person")
        team.prepare(conn)  # the grants reach tables that later migrations made
        team.assign(conn, person, role)
        ctx.event(conn, actor=actor.name, action="team:set-role", target=f"person:{person}", project="",
                  before={"role": held}, after={"role": role})
    return TeamMember(person=person, role=role)


def remove(ctx: Context, actor: Actor, person: str) -> TeamMember:
    """`person` loses their role here; their login goes too unless another database's team holds it."""
    person = _person(person)
    team = _team_store(ctx)
    with ctx.store.write() as conn:
        held = team.role_of(conn, person)
        if held is None:
            raise NotFound(f"{person} has no role in this store", field="person")
        team.assign(conn, person, None)
        team.drop_login(conn, person)
        ctx.event(conn, actor=actor.name, action="team:remove", target=f"person:{person}", project="",
                  before={"role": held})
    return TeamMember(person=person, role=held)


def members(ctx: Context) -> list[TeamMember]:
    team = _team_store(ctx)
    with ctx.store.read() as conn:
        return [TeamMember(person=person, role=role) for person, role in team.members(conn)]


def _address(url: str, person: str, password: str | None) -> tuple[str, str | None]:
    parts = urlsplit(url)
    credentials = quote(person, safe="") + (f":{quote(password, safe='')}" if password else "")
    host = parts.hostname or "localhost"
    netloc = f"{credentials}@{f'[{host}]' if ':' in host else host}{f':{parts.port}' if parts.port else ''}"
    database = parts.path.lstrip("/") or person
    pgpass = None if password is None else f"{host}:{parts.port or 5432}:{database}:{person}:{password}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, "")), pgpass
