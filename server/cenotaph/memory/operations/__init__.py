"""Operations on the whole store: backup and restore (a merge), repair after a crash, moving a
store to another (SQLite ↔ PostgreSQL), and bulk import."""
