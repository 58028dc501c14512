"""Knowledge from outside the conversation: the repository's documents (chunked, with their
heading paths and lines), feeds (RSS/Atom entries that expire unless promoted), and compaction
(summaries that stand for clusters of older memories)."""
