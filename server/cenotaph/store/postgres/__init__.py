"""The store on PostgreSQL (≥ 15, with the pgvector and pg_trgm extensions), for a team.

How to open one: give any `postgresql://user@host:port/db` URL where a store location goes —
`--db`, `CENOTAPH_STORE`, or `store = "postgresql://…"` in config.toml (`cenotaph.app.open_store`
picks the implementation); in code, `PostgresStore(url)` (store/postgres/db.py). Credentials come
from the URL, `PGPASSWORD` or `~/.pgpass` (libpq's ways).

The interface is `store.db.Store`'s: `write()` / `read()` context managers that yield a
connection, `get_meta` / `set_meta`, `schema_version`, `path` (here the URL without its
password), `describe()`, `versions()`, `close()`. The domain hands that connection to the store
modules (`store/memories.py`, `store/events.py`, …), whose SQL is shared: `PgConnection`
(connection.py) translates placeholders and SQLite spellings, and the few functions whose
statements differ are marked `@per_dialect` (store/dialect.py) and have their twin here, in the
module of the same name. The schema has its own numbered migrations (migrations.py)."""
