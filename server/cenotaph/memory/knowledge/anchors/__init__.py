"""Memories anchored to code: a memory may carry an anchor (a file relative to the repository
root, its lines, the anchored text with a little context as its fingerprint, the commit it was
taken at). `fingerprint.py` takes the text and re-finds it in a file as it is now (exactly, then
fuzzily), and moves it with an editor's edits; `follow.py` follows renames through git, checks
anchors against the working tree (current, moved, stale, lost) and holds the verbs."""
