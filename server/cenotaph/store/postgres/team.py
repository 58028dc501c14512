"""The team's roles on a PostgreSQL store: a person is a login, and their role in this database
is membership of one of its three group roles, `<database>_reader`, `_writer` and `_reviewer`.
GRANTs give readers SELECT (and the recall log), writers and reviewers the rest; the triggers of
migration `_m0009_team_roles` keep the reviewer's verbs to reviewers. Run by the store's owner (or
a role with CREATEROLE that the owner's grants reach): the CLI's `cenotaph team` verbs."""

from __future__ import annotations

from typing import Any

from psycopg import sql

ROLES = ("reader", "writer", "reviewer")
# What a reader's recall writes: the recall log, and the counters on what it returned.
_READER_WRITES = ("GRANT INSERT ON recall_log TO {group}",
                  "GRANT UPDATE (recall_count, last_recalled_at) ON memories TO {group}")


def group(conn: Any, role: str) -> str:
    """This database's group role for `role` (as migration `_m0009_team_roles` names it)."""
    database = conn.execute("SELECT left(current_database(), 50)").fetchone()[0]
    return f"{database}_{role}"


def _exists(conn: Any, name: str) -> bool:
    return conn.execute("SELECT 1 FROM pg_roles WHERE rolname = ?", (name,)).fetchone() is not None


def prepare(conn: Any) -> None:
    """The three group roles, made if missing, with their grants on every table there is now (and,
    through default privileges, on those later migrations make)."""
    database = conn.execute("SELECT current_database()").fetchone()[0]
    for role in ROLES:
        name = sql.Identifier(group(conn, role))
        if not _exists(conn, group(conn, role)):
            conn.execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(name))
        conn.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(database), name))
        conn.execute(sql.SQL("GRANT USAGE ON SCHEMA public TO {}").format(name))
        conn.execute(sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA public TO {}").format(name))
        conn.execute(sql.SQL("ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO {}").format(name))
        if role == "reader":
            for grant in _READER_WRITES:
                conn.execute(sql.SQL(grant).format(group=name))
            conn.execute(sql.SQL("GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {}").format(name))
            continue
        conn.execute(sql.SQL("GRANT INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {}").format(name))
        conn.execute(sql.SQL("GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO {}").format(name))
        conn.execute(sql.SQL("ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT INSERT, UPDATE, DELETE ON TABLES "
                             "TO {}").format(name))
        conn.execute(sql.SQL("ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT, UPDATE ON SEQUENCES "
                             "TO {}").format(name))


def login_exists(conn: Any, person: str) -> bool:
    return _exists(conn, person)


def create_login(conn: Any, person: str, password: str) -> None:
    conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(sql.Identifier(person), sql.Literal(password)))


def role_of(conn: Any, person: str) -> str | None:
    """The team role `person` holds in this database (the strongest, were there several)."""
    for role in reversed(ROLES):
        name = group(conn, role)
        if _exists(conn, name) and conn.execute(
                "SELECT 1 FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid JOIN pg_roles p "
                "ON p.oid = m.member WHERE g.rolname = ? AND p.rolname = ?", (name, person)).fetchone():
            return role
    return None


def assign(conn: Any, person: str, role: str | None) -> None:
    """`person` holds `role` in this database and no other team role (None: none at all)."""
    for other in ROLES:
        name = group(conn, other)
        if other == role:
            conn.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(name), sql.Identifier(person)))
        elif _exists(conn, name):
            conn.execute(sql.SQL("REVOKE {} FROM {}").format(sql.Identifier(name), sql.Identifier(person)))


def members(conn: Any) -> list[tuple[str, str]]:
    """(person, role) for everyone holding a team role in this database, by name."""
    names = {group(conn, role): role for role in ROLES}
    rows = conn.execute(
        "SELECT p.rolname, g.rolname FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid "
        "JOIN pg_roles p ON p.oid = m.member WHERE g.rolname = ANY(?) ORDER BY p.rolname", (list(names),)).fetchall()
    held: dict[str, str] = {}
    for person, name in rows:
        if person not in held or ROLES.index(names[name]) > ROLES.index(held[person]):
            held[person] = names[name]
    return sorted(held.items())


def drop_login(conn: Any, person: str) -> bool:
    """Drop `person`'s login if nothing else holds it (no other membership, nothing owned)."""
    busy = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM pg_auth_members m JOIN pg_roles p ON p.oid = m.member WHERE p.rolname = ?) "
        "OR EXISTS (SELECT 1 FROM pg_shdepend d JOIN pg_roles p ON p.oid = d.refobjid WHERE p.rolname = ?)",
        (person, person)).fetchone()[0]
    if busy:
        return False
    conn.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(person)))
    return True
