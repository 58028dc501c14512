"""The team folder: `.cenotaph/` in a repository, one file per shared entry (folder.py has the
formats and reads them), and share/unshare, which write the store's entries into it."""
