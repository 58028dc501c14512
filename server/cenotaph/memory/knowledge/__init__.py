"""Knowledge from outside the conversation: the repository's documents (chunked, with their
heading paths and lines), its code as memories' anchors (`anchors/`: lines a memory is about,
followed through edits and commits, stale when they change), feeds (RSS/Atom entries that expire
unless promoted), and compaction (summaries that stand for clusters of older memories)."""
