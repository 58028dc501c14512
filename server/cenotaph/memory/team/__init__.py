"""The team folder: `.cenotaph/` in a repository, one file per shared entry (folder.py has the
formats and reads them), and share/unshare, which write the store's entries into it; and the
team's roles on a PostgreSQL store (roles.py: who may read, write, or review)."""
